import { CosmosClient } from "@azure/cosmos";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos, startFaultProxy } from "../../../../test/cosmos-stand-in";
import { webhookAudit } from "../../../domain/settings-audit-subjects";
import type { StoredWebhook } from "../../../domain/webhook";
import { withWriteContext } from "../../../observability/write-context";
import { CosmosDatabase } from "../cosmos-client";
import { CosmosSettingsRepository } from "../cosmos-settings-repository";
import { CosmosSettingsAuditLog } from "./cosmos-settings-audit-log";
import { PendingAuditWriter } from "./pending-audit";

let tick = Date.parse("2026-03-01T10:00:00.000Z");
const clock = { now: () => new Date((tick += 1000)) };
const settingsChange = { recordedBy: "cl_admin", requestId: "req-1", audited: true };

const webhook = (id: string, over: Partial<StoredWebhook> = {}): StoredWebhook => ({
  id,
  url: "https://bi.example.com/hook",
  events: ["portfolio.valued"],
  description: "BI",
  status: "enabled",
  secret: "sealed:v1:abcdef",
  createdAt: "2026-03-01T09:00:00.000Z",
  updatedAt: "2026-03-01T09:00:00.000Z",
  ...over,
});

/**
 * The audit entry travels in the change's own batch; a crash after the batch and before the entry's copy
 * into the `audit` container (played here by the proxy refusing every write to that container, as if the
 * process had died) leaves the entry pending, and the next read of the trail shows it, once.
 */
describe("settings changes and their audit entries on the Cosmos stand-in", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let broken: CosmosClient;
  beforeAll(async () => {
    cosmos = await startCosmos();
    proxy = await startFaultProxy(cosmos.endpoint);
    broken = new CosmosClient({
      endpoint: proxy.endpoint,
      key: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
      connectionPolicy: { enableEndpointDiscovery: false },
    });
  });
  afterAll(async () => {
    broken.dispose();
    await proxy.stop();
    await cosmos.stop();
  });

  const repositoryOn = (db: CosmosDatabase): CosmosSettingsRepository<StoredWebhook> =>
    new CosmosSettingsRepository(db.container("settings"), "webhook", "Webhook", {
      writer: new PendingAuditWriter(db.container("settings"), db.container("audit"), clock),
      subject: webhookAudit,
    });
  const log = (): CosmosSettingsAuditLog =>
    new CosmosSettingsAuditLog(
      cosmos.db.container("audit"),
      new PendingAuditWriter(cosmos.db.container("settings"), cosmos.db.container("audit"), clock),
    );
  const pendingDocs = async (): Promise<unknown[]> =>
    (await cosmos.db.container("settings").items.query("SELECT * FROM c WHERE IS_DEFINED(c.pendingAudit)").fetchAll())
      .resources;
  const auditDocs = async (): Promise<unknown[]> =>
    (await cosmos.db.container("audit").items.query("SELECT * FROM c").fetchAll()).resources;

  it("a change committed just before a crash keeps its entry: pending beside the item, in the trail at the next read, once", async () => {
    const repository = repositoryOn(new CosmosDatabase(broken, "unit"));
    await repositoryOn(cosmos.db).create(webhook("wh_crash"));
    proxy.fault((r) => (r.method === "POST" && r.path.includes("/colls/audit/docs") ? { status: 503 } : undefined));
    const updated = await withWriteContext(settingsChange, () =>
      repository.update("wh_crash", (w) => ({ ...w, events: ["portfolio.valued", "transaction.settled"] })),
    );
    proxy.fault(undefined);
    expect(updated?.events).toEqual(["portfolio.valued", "transaction.settled"]);
    expect(await auditDocs()).toEqual([]);
    expect(await pendingDocs()).toHaveLength(1);
    // Lists of the item's kind never show the pending document.
    expect((await repositoryOn(cosmos.db).all()).map((w) => w.id)).toEqual(["wh_crash"]);

    const page = await log().list({ resourceType: "webhook", resourceId: "wh_crash" }, { page: 1, pageSize: 50 });
    expect(page.items).toEqual([
      {
        id: expect.stringMatching(/^au_/),
        at: expect.stringMatching(/^2026-03-01T10:00:0\d\.000Z$/),
        actor: "cl_admin",
        requestId: "req-1",
        action: "updated",
        resource: { type: "webhook", id: "wh_crash", name: "https://bi.example.com/hook" },
        changes: [{ field: "events", from: ["portfolio.valued"], to: ["portfolio.valued", "transaction.settled"] }],
      },
    ]);
    expect(await pendingDocs()).toEqual([]);
    expect((await log().list({}, { page: 1, pageSize: 50 })).totalItems).toBe(1);
  });

  it("a refused change writes neither the item nor an entry; the service's own writes are not audited", async () => {
    const repository = repositoryOn(cosmos.db);
    await expect(
      withWriteContext({ ...settingsChange, requestId: "req-dup" }, () => repository.create(webhook("wh_crash"))),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await withWriteContext({ ...settingsChange, requestId: "req-2" }, () =>
      repository.update("wh_crash", (w) => ({ ...w, status: "disabled", disabledReason: "paused by ops" })),
    );
    await repository.update("wh_crash", (w) => ({ ...w, updatedAt: "2026-03-02T00:00:00.000Z", url: "https://x" }));
    const entries = (await log().list({}, { page: 1, pageSize: 50 })).items;
    expect(entries.map((e) => [e.requestId, e.action])).toEqual([
      ["req-2", "disabled"],
      ["req-1", "updated"],
    ]);
    expect(JSON.stringify(entries)).not.toContain("sealed:v1");
    expect(await pendingDocs()).toEqual([]);
  });
});
