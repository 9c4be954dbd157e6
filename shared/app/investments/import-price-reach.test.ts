import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { Composition } from "../../composition/index";
import { parseConfig } from "../../config";
import type { MessageBus } from "../../ports/message-bus";
import { ImportRecords } from "./import/import-records";
import { newPortfolio } from "../../domain/portfolio";

const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

describe("price imports mark only the snapshots their prices can change (Cosmos stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let app: Composition;
  const now = new Date("2026-01-05T10:00:00.000Z");
  const sent: unknown[] = [];
  const bus: MessageBus = {
    send: async (queue, messages) => void sent.push(...messages.map((m) => ({ queue, body: m.body }))),
  };
  beforeAll(async () => {
    cosmos = await startCosmos();
    const config = parseConfig({
      COSMOS_ENDPOINT: cosmos.endpoint,
      COSMOS_KEY: KEY,
      COSMOS_DATABASE: "unit",
      COSMOS_ENDPOINT_DISCOVERY: "false",
      JWT_SIGNING_KEY: Buffer.alloc(32, 7).toString("base64"),
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
    });
    app = new Composition(config, { now: () => now });
  });
  afterAll(async () => cosmos.stop());

  const imports = (): ImportRecords =>
    new ImportRecords({
      portfolios: app.investments.portfolioRepository(),
      securities: app.investments.securityRepository(),
      prices: app.investments.priceRepository(),
      fxRates: app.investments.fxRateRepository(),
      positions: app.investments.positionRepository(),
      transactions: app.investments.transactionRepository(),
      jobs: app.investments.jobRepository(),
      outbox: app.core.outbox(),
      dataQuality: app.investments.dataQualityExceptions(),
      messageBus: bus,
      clock: { now: () => now },
      priceJumpThreshold: 0.25,
    });
  const price = (date: string, price: number, type = "close") => ({
    isin: "US0378331005",
    date,
    price,
    currency: "EUR",
    type,
    source: "feed",
  });

  it("a backfill older than the stored newest price leaves a later snapshot current; a price in reach marks it", async () => {
    const positions = app.investments.positionRepository();
    await app.investments.portfolioRepository().create(
      newPortfolio(
        {
          id: "pf_REACH",
          name: "Reach",
          code: "REACH",
          clientId: "c",
          baseCurrency: "EUR",
          type: "standard",
          status: "active",
        },
        now.toISOString(),
      ),
    );
    await imports().execute({
      dataType: "securities",
      body: {
        securities: [{ id: "SEC-REACH", isin: "US0378331005", name: "Reach", assetClass: "equity", currency: "EUR" }],
      },
    });
    await imports().execute({ dataType: "prices", body: { prices: [price("2024-06-28", 100)] } });
    await imports().execute({
      dataType: "positions",
      body: { positions: [{ portfolioId: "pf_REACH", securityId: "SEC-REACH", date: "2024-06-28", quantity: 5 }] },
    });
    const [marker] = await positions.staleMarkers("pf_REACH", 10);
    expect(marker).toBeDefined();
    await positions.clearStale(marker === undefined ? [] : [marker]);
    sent.length = 0;

    // Two years of history before the stored 2024-06-28 close: the snapshot's valuation cannot change.
    const backfill = await imports().execute({
      dataType: "prices",
      body: { prices: [price("2022-01-03", 80), price("2023-01-02", 90), price("2024-06-27", 99)] },
    });
    expect(backfill).toMatchObject({ created: 3 });
    expect(await positions.staleMarkers("pf_REACH", 10)).toEqual([]);
    expect(sent).toEqual([]);

    // A corrected close on the snapshot's date is in reach: marked and announced.
    await imports().execute({ dataType: "prices", body: { prices: [price("2024-06-28", 101)] } });
    expect(await positions.staleMarkers("pf_REACH", 10)).toEqual([
      expect.objectContaining({ date: "2024-06-28", writing: false }),
    ]);
    expect(sent).toEqual([{ queue: "valuations", body: { portfolioIds: ["pf_REACH"] } }]);
  });
});
