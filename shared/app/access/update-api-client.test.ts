import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { CosmosApiClientRepository } from "../../adapters/cosmos/cosmos-api-client-repository";
import { verifySecret } from "../../domain/secret-hash";
import { systemClock } from "../../ports/clock";
import { CreateApiClient } from "./create-api-client";
import { GetApiClient } from "./get-api-client";
import { RotateApiClientSecret } from "./rotate-api-client-secret";
import { UpdateApiClient } from "./update-api-client";

describe("API clients: concurrent changes (on the Cosmos stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let repo: CosmosApiClientRepository;
  let create: CreateApiClient;
  let get: GetApiClient;
  let update: UpdateApiClient;
  let rotate: RotateApiClientSecret;
  beforeAll(async () => {
    cosmos = await startCosmos();
    repo = new CosmosApiClientRepository(cosmos.db.container("settings"));
    const deps = { repository: repo, clock: systemClock };
    [create, get, update, rotate] = [
      new CreateApiClient(deps),
      new GetApiClient(deps),
      new UpdateApiClient(deps),
      new RotateApiClientSecret(deps),
    ];
  });
  afterAll(async () => cosmos.stop());

  it("a disable racing many renames is never undone, and every rename lands on the disabled client", async () => {
    const later = <T>(ms: number, run: () => Promise<T>): Promise<T> => new Promise((r) => setTimeout(r, ms)).then(run);
    for (let round = 0; round < 5; round++) {
      const { clientId } = await create.execute({ name: "Racer", scopes: ["api.read"], tier: "standard" });
      // Renames start before, with and after the disable, so some read the client before it is disabled and write after.
      const renames = Array.from({ length: 20 }, (_, i) =>
        later(i % 7, () => update.execute({ clientId, patch: { name: `Racer ${i}` } })),
      );
      await Promise.all([...renames, later(3, () => update.execute({ clientId, patch: { status: "disabled" } }))]);
      const stored = await get.execute(clientId);
      expect(stored.status).toBe("disabled");
      expect(stored.name).toMatch(/^Racer \d+$/);
    }
  });

  it("a secret rotation racing a disable keeps both: the client is disabled and holds the new secret", async () => {
    const { clientId } = await create.execute({ name: "Rotator", scopes: ["api.read"], tier: "standard" });
    const [rotated] = await Promise.all([
      rotate.execute(clientId),
      update.execute({ clientId, patch: { status: "disabled" } }),
      update.execute({ clientId, patch: { name: "Rotator 2" } }),
    ]);
    const stored = await repo.get(clientId);
    expect(stored?.status).toBe("disabled");
    expect(stored?.name).toBe("Rotator 2");
    expect(await verifySecret(rotated.clientSecret, stored?.secretHash)).toBe(true);
  });
});
