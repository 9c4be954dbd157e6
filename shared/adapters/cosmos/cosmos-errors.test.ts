import { BulkOperationType } from "@azure/cosmos";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startCosmos, startFaultProxy, standInClient } from "../../../test/cosmos-stand-in";
import { AppError } from "../../domain/errors";
import { bulkUpsert, bulkWithRetry } from "./bulk";
import { CosmosApiClientRepository } from "./cosmos-api-client-repository";
import { CosmosDatabase } from "./cosmos-client";
import { CosmosPortfolioRepository } from "./cosmos-portfolio-repository";
import { CosmosPriceRepository } from "./cosmos-price-repository";

const caught = async (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe("Cosmos failures at the adapter boundary (a proxy answering 429/503 in front of the stand-in)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let proxy: Awaited<ReturnType<typeof startFaultProxy>>;
  let db: CosmosDatabase;
  beforeAll(async () => {
    cosmos = await startCosmos();
    proxy = await startFaultProxy(cosmos.endpoint);
    db = new CosmosDatabase(standInClient(proxy.endpoint, 1), "unit");
  });
  afterAll(async () => {
    await proxy.stop();
    await cosmos.stop();
  });
  beforeEach(() => {
    proxy.fault(undefined);
    proxy.rewrite(undefined);
  });

  it("a point read still throttled after the SDK's retries is SERVICE_UNAVAILABLE with the store's Retry-After", async () => {
    const repo = new CosmosApiClientRepository(db.container("settings"));
    proxy.fault((r) =>
      r.method === "GET" && r.path.includes("/colls/settings/docs/") ? { status: 429, retryAfterMs: 2500 } : undefined,
    );
    const error = await caught(repo.get("cli_x"));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("SERVICE_UNAVAILABLE");
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).headers["Retry-After"]).toBe("3");
  });

  it("a throttled query and a 503 from the store are SERVICE_UNAVAILABLE too", async () => {
    const portfolios = new CosmosPortfolioRepository(db.container("portfolios"));
    proxy.fault((r) =>
      r.method === "POST" &&
      r.path.endsWith("/colls/portfolios/docs") &&
      r.headers["x-ms-documentdb-isquery"] !== undefined
        ? { status: 429, retryAfterMs: 100 }
        : undefined,
    );
    const throttled = await caught(portfolios.list({}, { page: 1, pageSize: 10 }));
    expect((throttled as AppError).code).toBe("SERVICE_UNAVAILABLE");
    expect((throttled as AppError).headers["Retry-After"]).toBe("1");

    proxy.fault((r) => (r.path.includes("/colls/portfolios/docs/") ? { status: 503 } : undefined));
    const down = await caught(portfolios.get("pf_1"));
    expect((down as AppError).code).toBe("SERVICE_UNAVAILABLE");
    expect((down as AppError).headers["Retry-After"]).toBe("1");
  });

  it("other statuses still reach the adapter: a missing document is just absent", async () => {
    const repo = new CosmosApiClientRepository(db.container("settings"));
    expect(await repo.get("cli_missing")).toBeUndefined();
  });

  it("bulk writes throttled beyond the retries fail with SERVICE_UNAVAILABLE, not a bare error", async () => {
    const prices = new CosmosPriceRepository(db.container("prices"));
    proxy.fault((r) =>
      r.headers["x-ms-cosmos-is-batch-request"] !== undefined ? { status: 429, retryAfterMs: 10 } : undefined,
    );
    const error = await caught(
      prices.save([
        {
          securityId: "sec_T",
          isin: null,
          date: "2024-01-01",
          price: 1,
          currency: "EUR",
          type: "close",
          source: "S",
          updatedAt: "2024-01-01T00:00:00.000Z",
        },
      ]),
    );
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("SERVICE_UNAVAILABLE");
    expect((error as AppError).headers["Retry-After"]).toMatch(/^\d+$/);
  }, 20_000);

  it("bulk operations that were throttled once are retried and succeed", async () => {
    let throttled = 0;
    proxy.fault((r) =>
      r.headers["x-ms-cosmos-is-batch-request"] !== undefined && throttled++ < 2
        ? { status: 429, retryAfterMs: 10 }
        : undefined,
    );
    const container = db.container("positions");
    await bulkUpsert(container, [
      { id: "a", portfolioId: "pf_r", v: 1 },
      { id: "b", portfolioId: "pf_r", v: 2 },
    ]);
    proxy.fault(undefined);
    const { resource } = await container.item("b", "pf_r").read<{ v: number }>();
    expect(resource?.v).toBe(2);
  });

  it("a bulk operation answered 429 inside a successful batch is retried; one that stays throttled is SERVICE_UNAVAILABLE", async () => {
    const container = db.container("positions");
    // The batch answers 207 with the first operation throttled (as Cosmos does for a partly throttled batch).
    const throttleFirst = (times: number) => {
      let left = times;
      proxy.rewrite((r, status, body) => {
        if (r.headers["x-ms-cosmos-is-batch-request"] === undefined || left <= 0) return undefined;
        left--;
        const ops = JSON.parse(body) as { statusCode: number }[];
        ops[0] = { ...ops[0], statusCode: 429 };
        return { status: status === 200 ? 207 : status, body: JSON.stringify(ops) };
      });
    };
    throttleFirst(1);
    await bulkUpsert(container, [
      { id: "t1", portfolioId: "pf_t", v: 1 },
      { id: "t2", portfolioId: "pf_t", v: 2 },
    ]);
    proxy.rewrite(undefined);
    expect((await container.item("t1", "pf_t").read<{ v: number }>()).resource?.v).toBe(1);

    throttleFirst(1000);
    const error = await caught(bulkUpsert(container, [{ id: "t3", portfolioId: "pf_t", v: 3 }]));
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("SERVICE_UNAVAILABLE");
  });

  it("every bulk operation names its partition key, taken from the document when the caller gave none", async () => {
    const start = proxy.seen.length;
    const container = db.container("prices");
    await bulkUpsert(container, [
      { id: "x1", securityId: "sec_P1", v: 1 },
      { id: "x2", securityId: "sec_P2", v: 2 },
    ]);
    const results = await bulkWithRetry(container, [
      { operationType: BulkOperationType.Read, id: "x2", partitionKey: "sec_P2" },
    ]);
    expect(results[0]?.statusCode).toBe(200);
    const batches = proxy.seen.slice(start).filter((r) => r.headers["x-ms-cosmos-is-batch-request"] !== undefined);
    expect(batches.length).toBeGreaterThan(0);
    const ops = batches.flatMap((b) => JSON.parse(b.body) as { partitionKey?: string; id?: string }[]);
    expect(ops.length).toBe(3);
    for (const op of ops) expect(op.partitionKey).toMatch(/^\["sec_P[12]"\]$/);
    await expect(bulkUpsert(container, [{ id: "nokey", v: 1 }])).rejects.toThrow(/no partition key/);
  });
});
