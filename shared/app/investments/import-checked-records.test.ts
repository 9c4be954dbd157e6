import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { Composition } from "../../composition/index";
import { parseConfig } from "../../config";
import { MAX_IMPORT_RECORDS } from "../../domain/import-payload";
import { ImportRecords } from "./import/import-records";

const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

describe("an import of checked records (a file's rows, parsed by its mapping) against a REST body (Cosmos stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let importer: ImportRecords;
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
    const app = new Composition(config);
    importer = new ImportRecords({
      portfolios: app.investments.portfolioRepository(),
      securities: app.investments.securityRepository(),
      prices: app.investments.priceRepository(),
      fxRates: app.investments.fxRateRepository(),
      positions: app.investments.positionRepository(),
      transactions: app.investments.transactionRepository(),
      jobs: app.investments.jobRepository(),
      outbox: app.core.outbox(),
      dataQuality: app.investments.dataQualityExceptions(),
      messageBus: { send: async () => undefined },
      clock: { now: () => new Date() },
      priceJumpThreshold: 0.25,
    });
    await importer.execute({
      dataType: "securities",
      body: { securities: [{ isin: "US0378331005", name: "Checked", assetClass: "equity", currency: "EUR" }] },
    });
  });
  afterAll(async () => cosmos.stop());

  const prices = (n: number): Record<string, unknown>[] =>
    Array.from({ length: n }, (_, i) => ({
      isin: "US0378331005",
      date: new Date(Date.UTC(1990, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      price: 100 + (i % 7),
      currency: "EUR",
      type: "close",
      source: "checked",
    }));

  it("a REST body is parsed and held to its record limit; checked records are neither", async () => {
    const many = prices(MAX_IMPORT_RECORDS + 1);
    await expect(importer.execute({ dataType: "prices", body: { prices: many } })).rejects.toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
    });
    await expect(
      importer.execute({ dataType: "prices", body: { prices: [{ ...many[0], price: "ten" }] } }),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR" });

    const result = await importer.execute({ dataType: "prices", checked: many });
    expect(result).toMatchObject({ received: MAX_IMPORT_RECORDS + 1, created: MAX_IMPORT_RECORDS + 1 });
    // The same records again, as a file re-sent: each found unchanged, none written twice.
    const again = await importer.execute({ dataType: "prices", checked: many });
    expect(again).toMatchObject({ created: 0, updated: 0, unchanged: MAX_IMPORT_RECORDS + 1 });
  });
});
