import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCosmos } from "../../../test/cosmos-stand-in";
import { Composition } from "../../composition/index";
import { parseConfig } from "../../config";
import { AppError } from "../../domain/errors";
import { JOB_LEASE_MS, type Job } from "../../domain/job";
import type { Security } from "../../domain/security";
import type { JobRepository, SecurityRepository, WriteCounts } from "../../ports/investment-repositories";
import { ImportRecords } from "./import/import-records";
import { ReapAbandonedJobs } from "./reap-abandoned-jobs";
import type { MessageBus } from "../../ports/message-bus";
import { newPortfolio } from "../../domain/portfolio";

const KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";
const MINUTE = 60_000;

describe("import jobs: leases, reaping and counts of what was written (Cosmos stand-in, fake clock)", () => {
  let cosmos: Awaited<ReturnType<typeof startCosmos>>;
  let now: Date;
  let app: Composition;
  beforeAll(async () => {
    cosmos = await startCosmos();
    now = new Date("2026-01-05T10:00:00.000Z");
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

  /** The import use case on the stand-in and the fake clock, with some of its dependencies replaced. */
  const importService = (replaced: Partial<ConstructorParameters<typeof ImportRecords>[0]>): ImportRecords =>
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
      messageBus: { send: async () => {} },
      clock: { now: () => now },
      priceJumpThreshold: 0.25,
      ...replaced,
    });

  const job = (id: string, status: Job["status"], leaseUntil: string | null, accepted = 0): Job => ({
    id,
    source: "sftp",
    dataType: "prices",
    feedId: null,
    fileName: null,
    status,
    counts: { received: 1200, accepted, rejected: 0, removed: 0 },
    errors: [],
    startedAt: now.toISOString(),
    completedAt: status === "running" ? null : now.toISOString(),
    leaseUntil,
  });

  it("marks a running job failed only once its lease has passed, keeping the counts it reported", async () => {
    const jobs = app.investments.jobRepository();
    const lease = new Date(now.getTime() + JOB_LEASE_MS).toISOString();
    await jobs.put(job("job_dead", "running", lease, 500));
    await jobs.put(job("job_done", "completed", null, 1200));
    const reaper = new ReapAbandonedJobs({ jobs, outbox: app.core.outbox(), clock: { now: () => now } });

    now = new Date(now.getTime() + JOB_LEASE_MS - MINUTE);
    expect(await reaper.execute()).toEqual([]);
    expect((await jobs.get("job_dead"))?.status).toBe("running");

    now = new Date(now.getTime() + 2 * MINUTE);
    expect(await reaper.execute()).toEqual(["job_dead"]);
    const reaped = await jobs.get("job_dead");
    expect(reaped).toMatchObject({
      status: "failed",
      counts: { received: 1200, accepted: 500, rejected: 0, removed: 0 },
      completedAt: now.toISOString(),
      leaseUntil: null,
    });
    expect(reaped?.errors).toEqual([
      { field: "", message: expect.stringContaining("500 of 1200 records were stored") },
    ]);
    expect((await jobs.get("job_done"))?.status).toBe("completed");
    const events = await app.core.outbox().list({ event: "refresh_job.failed" });
    expect(events.filter((e) => e.data.jobId === "job_dead")).toHaveLength(1);
    // Reaping again changes nothing.
    expect(await reaper.execute()).toEqual([]);
  });

  it("leaves a job that finished after the reaper found it: the failure is written only over the version it saw", async () => {
    const jobs = app.investments.jobRepository();
    const expired = new Date(now.getTime() - MINUTE).toISOString();
    const stale = job("job_raced", "running", expired, 100);
    await jobs.put(stale);
    // The import finishes between the reaper's query and its write.
    const racing: JobRepository = Object.assign(Object.create(jobs) as JobRepository, {
      abandoned: async () => {
        await jobs.put({
          ...stale,
          status: "completed",
          counts: { ...stale.counts, accepted: 1200 },
          completedAt: now.toISOString(),
          leaseUntil: null,
        });
        return [stale];
      },
    });
    expect(
      await new ReapAbandonedJobs({ jobs: racing, outbox: app.core.outbox(), clock: { now: () => now } }).execute(),
    ).toEqual([]);
    expect(await jobs.get("job_raced")).toMatchObject({ status: "completed", counts: { accepted: 1200 } });
    expect(
      (await app.core.outbox().list({ event: "refresh_job.failed" })).filter((e) => e.data.jobId === "job_raced"),
    ).toEqual([]);
  });

  it("renews the lease after every batch, and a job that fails after writing reports what it wrote (not a 500)", async () => {
    const leases: (string | null)[] = [];
    const recordingJobs: JobRepository = Object.assign(
      Object.create(app.investments.jobRepository()) as JobRepository,
      {
        put: async (j: Job) => {
          leases.push(j.leaseUntil);
          await app.investments.jobRepository().put(j);
        },
      },
    );
    let saves = 0;
    // Each batch takes four minutes (fake clock); the second one fails after the first was stored.
    const failingSecurities: SecurityRepository = Object.assign(
      Object.create(app.investments.securityRepository()) as SecurityRepository,
      {
        save: async (batch: readonly Security[]): Promise<WriteCounts> => {
          now = new Date(now.getTime() + 4 * MINUTE);
          if (++saves === 2) throw new Error("connection reset by the store");
          return app.investments.securityRepository().save(batch);
        },
      },
    );
    const imports = importService({ securities: failingSecurities, jobs: recordingJobs, commitBatch: 500 });
    const securities = Array.from({ length: 700 }, (_, i) => ({
      id: `SEC-BATCH-${i}`,
      name: `Security ${i}`,
      assetClass: "equity",
      currency: "EUR",
    }));
    const startedAt = now.getTime();
    const error = await imports
      .execute({ dataType: "securities", body: { securities }, origin: { source: "api" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: "SERVICE_UNAVAILABLE",
      message: expect.stringContaining("after storing 500 of 700 records"),
    });

    const page = await app.investments.jobRepository().list({ dataType: "securities" }, { page: 1, pageSize: 10 });
    const failed = page.items.find((j) => j.status === "failed");
    expect(failed).toMatchObject({
      status: "failed",
      counts: { received: 700, accepted: 500, rejected: 0, removed: 0 },
      leaseUntil: null,
    });
    expect((await app.investments.securityRepository().getMany(securities.map((s) => s.id))).size).toBe(500);
    // Start, after the first batch (renewed from the clock then), and the final failed state.
    expect(leases).toEqual([
      new Date(startedAt + JOB_LEASE_MS).toISOString(),
      new Date(startedAt + 4 * MINUTE + JOB_LEASE_MS).toISOString(),
      null,
    ]);
  });

  it("a retried call for the same job (its first attempt failed) keeps the job's first start", async () => {
    const failOnce: SecurityRepository = Object.assign(
      Object.create(app.investments.securityRepository()) as SecurityRepository,
      {
        save: async (): Promise<WriteCounts> => {
          throw new Error("connection reset by the store");
        },
      },
    );
    const securities = [{ id: "SEC-RESTART-1", name: "Restarted", assetClass: "equity", currency: "EUR" }];
    const origin = { source: "sftp" as const, jobId: "job_restarted", feedId: "fd_restart", fileName: "s.csv" };
    const firstStart = now.toISOString();
    await importService({ securities: failOnce })
      .execute({ dataType: "securities", body: { securities }, origin })
      .catch(() => undefined);
    expect((await app.investments.jobRepository().get("job_restarted"))?.status).toBe("failed");

    now = new Date(now.getTime() + 10 * MINUTE);
    await importService({}).execute({ dataType: "securities", body: { securities }, origin });
    expect(await app.investments.jobRepository().get("job_restarted")).toMatchObject({
      status: "completed",
      startedAt: firstStart,
      completedAt: now.toISOString(),
    });
  });

  it("completes once the data and its stale markers are stored, without waiting for valuation: one valuations message per 25 portfolios", async () => {
    const sent: unknown[] = [];
    const bus: MessageBus = {
      send: async (queue, messages) => void sent.push(...messages.map((m) => ({ queue, body: m.body }))),
    };
    const positions = app.investments.positionRepository();
    const portfolioIds = Array.from({ length: 30 }, (_, i) => `pf_QUEUE_${i}`);
    for (const id of portfolioIds)
      await app.investments
        .portfolioRepository()
        .create(
          newPortfolio(
            { id, name: id, code: id, clientId: "c", baseCurrency: "EUR", type: "standard", status: "active" },
            now.toISOString(),
          ),
        );
    await importService({ messageBus: bus }).execute({
      dataType: "securities",
      body: { securities: [{ id: "SEC-QUEUE-1", name: "Queue", assetClass: "equity", currency: "EUR" }] },
    });
    const result = await importService({ messageBus: bus }).execute({
      dataType: "positions",
      body: {
        positions: portfolioIds.map((portfolioId) => ({
          portfolioId,
          securityId: "SEC-QUEUE-1",
          date: "2026-01-02",
          quantity: 1,
        })),
      },
    });
    expect(result).toMatchObject({ created: 30 });
    expect(await app.investments.jobRepository().get(result.jobId)).toMatchObject({
      status: "completed",
      leaseUntil: null,
    });
    // Nothing valued yet; every portfolio-date marked (ready, by this job), and 30 portfolios in 2 messages.
    expect(await positions.valuation("pf_QUEUE_0", "2026-01-02", false)).toBeUndefined();
    expect([...(await positions.stalePortfolios(portfolioIds))].sort()).toEqual([...portfolioIds].sort());
    expect(await positions.staleMarkers("pf_QUEUE_3", 10)).toEqual([
      expect.objectContaining({ date: "2026-01-02", jobId: result.jobId, writing: false }),
    ]);
    expect(sent).toEqual([
      { queue: "valuations", body: { portfolioIds: portfolioIds.slice(0, 25) } },
      { queue: "valuations", body: { portfolioIds: portfolioIds.slice(25) } },
    ]);
  });
});
