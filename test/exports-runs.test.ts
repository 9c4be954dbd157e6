import { readdir, readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import { parse } from "csv-parse/sync";
import * as XLSX from "xlsx";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Composition } from "../shared/composition";
import { parseConfig } from "../shared/config";
import { exportRunId } from "../shared/domain/export-run";
import { adminToken, call, cosmosEndpoint, storageConnectionString, uniqueCode, useOwnRuntime } from "./http";
import {
  COSMOS_KEY,
  createPortfolio,
  createSecurities,
  imported,
  listAll,
  securityRecord,
  whenValued,
  type PortfolioData,
} from "./investment-fixtures";
import { TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";
import { startSftpTarget, type SftpTarget } from "./sftp-target";

// The exports timer every second, failed attempts retried after 1 s, a dead attempt's lease over after 6 s.
useOwnRuntime({
  EXPORTS_SCHEDULE: "*/1 * * * * *",
  EXPORTS_RETRY_DELAY_SECONDS: "1",
  EXPORTS_RUN_LEASE_SECONDS: "6",
  EXPORTS_SFTP_CONNECT_TIMEOUT_SECONDS: "3",
});

const BASE = "/api/v1/settings/exports";
const PASSWORD = "customer-Sftp-pa55word";
const DATA_TYPES = [
  "portfolios",
  "holdings",
  "positions",
  "transactions",
  "prices",
  "fx-rates",
  "securities",
  "exceptions",
] as const;
const FORMATS = ["csv", "xlsx", "json"] as const;
type DataType = (typeof DATA_TYPES)[number];
type Row = Record<string, unknown>;
type Run = {
  id: string;
  status: string;
  fileName: string;
  rows: number;
  bytes: number;
  attempts: number;
  error?: string;
  trigger: string;
  scheduledFor: string;
  startedAt: string;
  completedAt?: string;
};

/** The value at a dotted column path. */
function at(record: Row, column: string): unknown {
  let value: unknown = record;
  for (const key of column.split("."))
    value = value === null || typeof value !== "object" ? undefined : (value as Row)[key];
  return value;
}

const ISO = /^\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d(\.\d+)?Z)?$/;
const serialOf = (iso: string): number => Date.parse(iso) / 86_400_000 + 25_569;

/** Whether a CSV cell (text) says what the API's value says: empty for null, JSON text for arrays and objects, formula characters neutralised. */
function csvAgrees(cell: string, value: unknown): boolean {
  if (value === null || value === undefined) return cell === "";
  if (typeof value === "number") return Number(cell) === value;
  if (typeof value === "boolean") return cell === String(value) || cell === (value ? "1" : "");
  if (typeof value === "object") return cell === JSON.stringify(value);
  return cell === value || (typeof value === "string" && /^[=+\-@\t\r]/.test(value) && cell === `'${value}`);
}

/** The same for an XLSX cell read raw by SheetJS: numbers as numbers, dates as Excel serial numbers. */
function xlsxAgrees(cell: unknown, value: unknown): boolean {
  if (value === null || value === undefined) return cell === null;
  if (typeof value === "string" && ISO.test(value) && typeof cell === "number")
    return Math.abs(cell - serialOf(value)) < 1e-6;
  if (typeof value === "object") return cell === JSON.stringify(value);
  return cell === value;
}

describe("scheduled exports end to end: every data type in every format to SFTP and blob, on demand and on schedule", () => {
  let token: string;
  let target: SftpTarget;
  let container: ContainerClient;
  let services: Composition;
  let portfolios: PortfolioData[];
  const clientId = uniqueCode("exp-client");
  const expected = new Map<DataType, Row[]>();
  const sftp = (path: string, password = PASSWORD) => ({
    type: "sftp",
    host: "127.0.0.1",
    port: target.port,
    username: "ids",
    password,
    path,
  });
  const blob = () => ({ type: "blob", containerUrl: container.url, prefix: "ids/" });
  const farTime = (): string => new Date(Date.now() + 12 * 3600_000).toISOString().slice(11, 16);

  const create = async (body: Row): Promise<{ id: string }> => {
    const reply = await call("POST", BASE, {
      token,
      body: { name: "export", schedule: { frequency: "daily", time: farTime() }, ...body },
    });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data;
  };
  const runs = async (id: string): Promise<Run[]> =>
    (await call("GET", `${BASE}/${id}/runs?pageSize=200`, { token })).body.data;
  /** Polls the run history until `done` holds (bounded). */
  async function until(id: string, done: (runs: Run[]) => boolean, seconds = 30): Promise<Run[]> {
    return vi.waitFor(
      async () => {
        const current = await runs(id);
        if (!done(current)) throw new Error(`runs of ${id} not done: ${JSON.stringify(current)}`);
        return current;
      },
      { timeout: seconds * 1000, interval: 250 },
    );
  }
  const finished = (rs: Run[]) => rs.length > 0 && rs.every((r) => r.status !== "running" && r.status !== "retrying");
  const sftpFile = (path: string, name: string): Promise<Buffer> => readFile(join(target.root, path, name));
  const blobFile = (name: string): Promise<Buffer> => container.getBlobClient(`ids/${name}`).downloadToBuffer();
  const cosmos = () =>
    new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    }).database("investment-data");
  /** Makes the export due: its nextRunAt set to `at`, as if the time had come. */
  async function dueAt(id: string, at: string): Promise<void> {
    const item = cosmos().container("settings").item(id, "export");
    const { resource } = await item.read();
    await item.replace({ ...resource, nextRunAt: at });
  }

  beforeAll(async () => {
    token = await adminToken();
    target = await startSftpTarget({ users: [{ username: "ids", password: PASSWORD }] });
    container = BlobServiceClient.fromConnectionString(storageConnectionString()).getContainerClient(
      `customer-${Date.now()}`,
    );
    await container.create();
    services = new Composition(
      parseConfig({
        COSMOS_ENDPOINT: cosmosEndpoint(),
        COSMOS_KEY,
        COSMOS_ENDPOINT_DISCOVERY: "false",
        STORAGE_CONNECTION_STRING: storageConnectionString(),
        JWT_SIGNING_KEY: TEST_JWT_KEY,
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
        EXPORTS_RUN_LEASE_SECONDS: "6",
      }),
    );

    const records = [securityRecord({ name: '=HYPERLINK("x") Corp, "A"' }), securityRecord({ currency: "USD" })];
    const s = await createSecurities(token, records);
    const p = [
      await createPortfolio(token, { clientId, baseCurrency: "EUR" }),
      await createPortfolio(token, { clientId, baseCurrency: "USD" }),
    ];
    await imported(token, "prices", {
      prices: [
        { isin: records[0]!.isin, date: "2024-01-03", price: 10.5, currency: "EUR", type: "close", source: "exp" },
        { isin: records[1]!.isin, date: "2024-01-03", price: 30, currency: "USD", type: "close", source: "exp" },
      ],
    });
    await imported(token, "fx-rates", {
      fxRates: [{ baseCurrency: "EUR", quoteCurrency: "USD", date: "2024-01-03", rate: 1.1, source: "exp" }],
    });
    await imported(token, "positions", {
      positions: [
        { portfolioId: p[0]!.id, securityId: s[0], date: "2024-01-03", quantity: 100, costBasis: 900, currency: "EUR" },
        { portfolioId: p[0]!.id, securityId: s[1], date: "2024-01-03", quantity: 10 },
        { portfolioId: p[1]!.id, securityId: s[1], date: "2024-01-03", quantity: 7 },
      ],
    });
    await imported(token, "transactions", {
      transactions: [
        {
          externalId: uniqueCode("t"),
          portfolioId: p[0]!.id,
          securityId: s[0],
          type: "buy",
          quantity: 2,
          price: 10,
          status: "settled",
          tradeDate: "2024-01-02",
          currency: "EUR",
        },
        {
          externalId: uniqueCode("t"),
          portfolioId: p[1]!.id,
          type: "deposit",
          netAmount: 500,
          status: "pending",
          tradeDate: "2024-01-03",
          currency: "USD",
        },
      ],
    });
    portfolios = (await whenValued(token, p[0]!.id, p[1]!.id)).sort((a, b) => (a.code < b.code ? -1 : 1));

    // What the API answers for each data type (the runtime holds only this file's data).
    expected.set("portfolios", await listAll(token, `/api/v1/portfolios?clientId=${clientId}`));
    const holdings: Row[] = [];
    for (const pf of portfolios) {
      const view = (await call("GET", `/api/v1/portfolios/${pf.id}/holdings`, { token })).body.data;
      holdings.push(
        ...view.holdings.map((h: Row) => ({
          portfolioId: pf.id,
          portfolioCode: pf.code,
          date: view.date,
          baseCurrency: view.baseCurrency,
          ...h,
        })),
      );
    }
    expected.set("holdings", holdings);
    const transactions: Row[] = [];
    for (const pf of portfolios)
      transactions.push(...(await listAll(token, `/api/v1/transactions?portfolioId=${pf.id}`)));
    expected.set("transactions", transactions);
    const prices: Row[] = [];
    for (const id of [...s].sort()) prices.push(...(await listAll(token, `/api/v1/securities/${id}/prices`)));
    expected.set("prices", prices);
    expected.set(
      "securities",
      await Promise.all(
        [...s].sort().map(async (id) => (await call("GET", `/api/v1/securities/${id}`, { token })).body.data),
      ),
    );
    expected.set("exceptions", await listAll(token, "/api/v1/exceptions"));
    expected.set("fx-rates", [
      { baseCurrency: "EUR", quoteCurrency: "USD", date: "2024-01-03", rate: 1.1, source: "exp" },
    ]);
  }, 90_000);

  afterAll(async () => {
    await target?.close();
    await container?.deleteIfExists();
  });

  it("each data type in each format to each destination, run on demand: the files read back (csv-parse, SheetJS, JSON.parse) equal the API's answers", async () => {
    const cases = DATA_TYPES.flatMap((dataType) =>
      FORMATS.flatMap((format) => (["sftp", "blob"] as const).map((to) => ({ dataType, format, to }))),
    );
    const created = await Promise.all(
      cases.map(async (c) => {
        const filters = ["portfolios", "holdings", "positions", "transactions"].includes(c.dataType)
          ? { clientId }
          : {};
        const period = ["transactions", "prices"].includes(c.dataType) ? { period: "all" } : {};
        const exp = await create({
          dataType: c.dataType,
          format: c.format,
          destination: c.to === "sftp" ? sftp("/matrix") : blob(),
          fileName: `${c.to}_{dataType}_{exportId}_{date:yyyyMMdd}.{format}`,
          filters: { ...filters, ...period },
        });
        const reply = await call("POST", `${BASE}/${exp.id}/run`, { token });
        expect(reply.status, reply.text).toBe(202);
        expect(reply.body.data).toMatchObject({
          exportId: exp.id,
          trigger: "manual",
          status: "running",
          attempts: 0,
          rows: 0,
        });
        return { ...c, id: exp.id, run: reply.body.data as Run };
      }),
    );

    for (const c of created) {
      const [run] = await until(c.id, finished, 45);
      expect(run, JSON.stringify(run)).toMatchObject({
        id: c.run.id,
        status: "succeeded",
        trigger: "manual",
        scheduledFor: c.run.scheduledFor,
      });
      const day = c.run.scheduledFor.slice(0, 10).replaceAll("-", "");
      expect(run!.fileName).toBe(`${c.to}_${c.dataType}_${c.id}_${day}.${c.format}`);
      const bytes = c.to === "sftp" ? await sftpFile("matrix", run!.fileName) : await blobFile(run!.fileName);
      expect(run!.bytes, c.dataType).toBe(bytes.length);
      const want = expected.get(c.dataType);
      const where = `${c.dataType} ${c.format} ${c.to}`;
      if (c.format === "json") {
        const file = JSON.parse(bytes.toString("utf8"));
        expect(file).toMatchObject({ exportId: c.id, dataType: c.dataType, count: run!.rows });
        if (c.dataType === "positions") {
          expect(file.data.map((r: Row) => r.portfolioId).sort()).toEqual(
            [portfolios[0]!.id, portfolios[0]!.id, portfolios[1]!.id].sort(),
          );
          expected.set("positions", file.data);
        } else expect(file.data, where).toEqual(want);
        expect(file.count).toBe(file.data.length);
        continue;
      }
      const reference = want ?? [];
      if (c.format === "csv") {
        const [header, ...lines] = parse(bytes, { bom: true });
        expect(lines, where).toHaveLength(run!.rows);
        if (c.dataType === "positions") continue;
        expect(lines).toHaveLength(reference.length);
        lines.forEach((line, i) =>
          header!.forEach((column, j) =>
            expect(
              csvAgrees(line[j]!, at(reference[i]!, column)),
              `${where} row ${i} ${column}: ${line[j]} vs ${JSON.stringify(at(reference[i]!, column))}`,
            ).toBe(true),
          ),
        );
      } else {
        const book = XLSX.read(bytes, { type: "buffer" });
        expect(book.SheetNames, where).toEqual([c.dataType]);
        const [header, ...lines] = XLSX.utils.sheet_to_json<unknown[]>(book.Sheets[c.dataType]!, {
          header: 1,
          defval: null,
          raw: true,
        });
        expect(lines, where).toHaveLength(run!.rows);
        if (c.dataType === "positions") continue;
        expect(lines).toHaveLength(reference.length);
        lines.forEach((line, i) =>
          (header as string[]).forEach((column, j) =>
            expect(
              xlsxAgrees(line[j] ?? null, at(reference[i]!, column)),
              `${where} row ${i} ${column}: ${String(line[j])} vs ${JSON.stringify(at(reference[i]!, column))}`,
            ).toBe(true),
          ),
        );
      }
    }
    const left = await readdir(join(target.root, "matrix"));
    expect(left.filter((f) => f.endsWith(".part"))).toEqual([]);
    expect(left).toHaveLength(DATA_TYPES.length * FORMATS.length);
  }, 120_000);

  it("on schedule: naming tokens in the export's time zone, the default period window, and two scheduler ticks for one scheduled time give one run and one file", async () => {
    const holdings = await create({
      dataType: "holdings",
      format: "csv",
      schedule: { frequency: "daily", time: "09:00", timezone: "America/New_York" },
      destination: sftp("/scheduled"),
      fileName: "{dataType}-{date:yyyyMMdd}-{time:HHmm}.{format}",
      filters: { clientId },
    });
    // 09:00 in New York the day after its 2026 change to daylight time is 13:00 UTC.
    const due = "2026-03-09T13:00:00.000Z";
    await dueAt(holdings.id, due);
    const transactions = await create({
      dataType: "transactions",
      format: "json",
      destination: blob(),
      fileName: "tx_{date:yyyy-MM-dd}.json",
      filters: { clientId },
      schedule: { frequency: "daily", time: "08:00" },
    });
    await dueAt(transactions.id, "2024-01-04T08:00:00.000Z");

    // The runtime's own timer ticks every second as well: three schedulers race for each scheduled time.
    const ticks = await Promise.all([
      services.exports.scheduleExports().execute(),
      services.exports.scheduleExports().execute(),
    ]);
    expect(ticks.reduce((n, t) => n + t.claimed, 0)).toBeLessThanOrEqual(2);

    const [run, ...others] = await until(holdings.id, finished);
    expect(others).toEqual([]);
    expect(run).toMatchObject({
      trigger: "schedule",
      scheduledFor: due,
      status: "succeeded",
      fileName: "holdings-20260309-0900.csv",
      rows: expected.get("holdings")!.length,
      attempts: 1,
    });
    await services.exports.scheduleExports().execute();
    expect(await runs(holdings.id)).toHaveLength(1);
    expect(await readdir(join(target.root, "scheduled"))).toEqual(["holdings-20260309-0900.csv"]);
    const next = (await call("GET", `${BASE}/${holdings.id}`, { token })).body.data.nextRunAt as string;
    expect(Date.parse(next)).toBeGreaterThan(Date.now());
    expect(
      new Intl.DateTimeFormat("en-US", {
        timeZone: "America/New_York",
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(new Date(next)),
    ).toBe("09:00");

    // A daily export's default period is the previous day of its scheduled time: trades of 2024-01-03 only.
    const [txRun] = await until(transactions.id, finished);
    expect(txRun).toMatchObject({
      status: "succeeded",
      fileName: "tx_2024-01-04.json",
      scheduledFor: "2024-01-04T08:00:00.000Z",
    });
    const file = JSON.parse((await blobFile("tx_2024-01-04.json")).toString("utf8"));
    expect(file.data).toEqual(expected.get("transactions")!.filter((t) => t.tradeDate === "2024-01-03"));
    expect(file.data).toHaveLength(1);
  }, 60_000);

  it("a wrong password or an unreachable host: three attempts, then a failed run whose error names the problem and no secret; fixed, the next run succeeds", async () => {
    const wrong = "wrong-Secret-9f8e7d";
    const badLogin = await create({
      dataType: "securities",
      format: "csv",
      destination: sftp("/fixed", wrong),
      fileName: "securities.csv",
    });
    const unreachable = await create({
      dataType: "securities",
      format: "csv",
      destination: { ...sftp("/fixed"), port: 1 },
      fileName: "securities.csv",
    });
    for (const { id } of [badLogin, unreachable])
      expect((await call("POST", `${BASE}/${id}/run`, { token })).status).toBe(202);

    // Between attempts the run is retrying, with why the last attempt failed and when the next is due (not "running").
    const retrying = await vi.waitFor(
      async () => {
        const [current] = await runs(badLogin.id);
        if (current?.status !== "retrying") throw new Error(`not retrying: ${JSON.stringify(current)}`);
        return current as Run & { nextAttemptAt: string };
      },
      { timeout: 20_000, interval: 25 },
    );
    expect(retrying.error).toMatch(/refused the login of user 'ids'/);
    expect(Date.parse(retrying.nextAttemptAt)).toBeGreaterThan(Date.parse(retrying.startedAt));

    const [failedLogin] = await until(badLogin.id, finished);
    expect(failedLogin).toMatchObject({ status: "failed", attempts: 3, rows: 0, bytes: 0 });
    expect(failedLogin!.error).toMatch(/^127\.0\.0\.1:\d+ refused the login of user 'ids': check the password$/);
    const [failedReach] = await until(unreachable.id, finished);
    expect(failedReach).toMatchObject({ status: "failed", attempts: 3 });
    expect(failedReach!.error).toBe(
      "could not open an SSH session with 127.0.0.1:1 within 3 s (no answer, the connection refused or closed, or not an SSH server): check the host, the port and the server's firewall",
    );
    // The list shows each export's last run, failed with its error, in the same answer (no call per export).
    const listed = (await call("GET", `${BASE}?pageSize=200`, { token })).body.data as {
      id: string;
      lastRun: Record<string, unknown> | null;
    }[];
    expect(listed.find((e) => e.id === badLogin.id)?.lastRun).toEqual({
      id: failedLogin!.id,
      status: "failed",
      scheduledFor: failedLogin!.scheduledFor,
      startedAt: failedLogin!.startedAt,
      completedAt: failedLogin!.completedAt,
      error: failedLogin!.error,
    });
    expect(listed.find((e) => e.id === unreachable.id)?.lastRun).toMatchObject({ status: "failed" });
    for (const { id } of [badLogin, unreachable]) {
      const text =
        (await call("GET", `${BASE}/${id}/runs`, { token })).text +
        (await call("GET", `${BASE}/${id}`, { token })).text;
      expect(text).not.toContain(wrong);
      expect(text).not.toContain(PASSWORD);
    }

    expect(
      (await call("PATCH", `${BASE}/${badLogin.id}`, { token, body: { destination: { password: PASSWORD } } })).status,
    ).toBe(200);
    expect(
      (await call("PATCH", `${BASE}/${unreachable.id}`, { token, body: { destination: { port: target.port } } }))
        .status,
    ).toBe(200);
    for (const { id } of [badLogin, unreachable]) {
      expect((await call("POST", `${BASE}/${id}/run`, { token })).status).toBe(202);
      const [latest, previous] = await until(id, finished);
      expect(latest).toMatchObject({ status: "succeeded", attempts: 1, rows: expected.get("securities")!.length });
      expect(latest!.error).toBeUndefined();
      expect(previous).toMatchObject({ status: "failed" });
      const exp = (await call("GET", `${BASE}/${id}`, { token })).body.data;
      expect(exp.lastRun).toMatchObject({ id: latest!.id, status: "succeeded" });
      expect(exp.lastRun).not.toHaveProperty("error");
    }
    expect(await readdir(join(target.root, "fixed"))).toEqual(["securities.csv"]);
  }, 60_000);

  it("a run whose attempt died is taken up again when its lease ends: the file is overwritten, not doubled; after the third attempt it is failed", async () => {
    const exp = await create({
      dataType: "portfolios",
      format: "csv",
      destination: sftp("/revived"),
      fileName: "portfolios.csv",
      filters: { clientId },
    });
    // What a killed attempt leaves: its run `running` with an expired lease, half a file under the temporary name, yesterday's file.
    await mkdir(join(target.root, "revived"), { recursive: true });
    await writeFile(join(target.root, "revived", ".portfolios.csv.part"), "id,na");
    await writeFile(join(target.root, "revived", "portfolios.csv"), "stale\n");
    const runsContainer = cosmos().container("runs");
    const dead = (scheduledFor: string, attempts: number) => {
      const id = exportRunId(exp.id, scheduledFor, "schedule");
      return {
        id,
        exportId: exp.id,
        trigger: "schedule",
        scheduledFor,
        status: "running",
        fileName: "portfolios.csv",
        rows: 0,
        bytes: 0,
        startedAt: scheduledFor,
        attempts,
        leaseUntil: "2026-01-01T00:00:00.000Z",
        ownerId: exp.id,
        type: "export-run",
        sortKey: `${scheduledFor}|${id}`,
      };
    };
    await runsContainer.items.create(dead("2026-11-20T07:00:00.000Z", 1));
    await runsContainer.items.create(dead("2026-11-19T07:00:00.000Z", 3));

    const [revived, abandoned] = await until(exp.id, finished);
    expect(revived).toMatchObject({
      scheduledFor: "2026-11-20T07:00:00.000Z",
      status: "succeeded",
      attempts: 2,
      rows: 2,
    });
    expect(abandoned).toMatchObject({
      scheduledFor: "2026-11-19T07:00:00.000Z",
      status: "failed",
      attempts: 3,
      error: "the attempt did not finish; stopped after 3 attempts",
    });
    expect(await readdir(join(target.root, "revived"))).toEqual(["portfolios.csv"]);
    const [header, ...lines] = parse(await sftpFile("revived", "portfolios.csv"));
    expect(lines.map((l) => l[header!.indexOf("id")])).toEqual(expected.get("portfolios")!.map((p) => p.id));
  }, 60_000);

  it("a run whose message was lost (claimed, never taken) is sent again once its claim's lease ends, and runs once", async () => {
    const exp = await create({
      dataType: "portfolios",
      format: "csv",
      destination: sftp("/unsent"),
      fileName: "portfolios.csv",
      filters: { clientId },
    });
    // What a crash between the claim and its message leaves: the run claimed, no attempt, the claim's lease (6 s here) over.
    const scheduledFor = "2026-11-21T07:00:00.000Z";
    const id = exportRunId(exp.id, scheduledFor, "schedule");
    const claimedAt = new Date(Date.now() - 60_000);
    const leaseUntil = new Date(claimedAt.getTime() + 6_000).toISOString();
    await cosmos()
      .container("runs")
      .items.create({
        id,
        exportId: exp.id,
        trigger: "schedule",
        scheduledFor,
        status: "running",
        fileName: "portfolios.csv",
        rows: 0,
        bytes: 0,
        startedAt: claimedAt.toISOString(),
        attempts: 0,
        leaseUntil,
        ownerId: exp.id,
        type: "export-run",
        sortKey: `${scheduledFor}|${id}`,
      });

    const [run, ...others] = await until(exp.id, finished);
    expect(others).toEqual([]);
    expect(run).toMatchObject({ id, scheduledFor, status: "succeeded", attempts: 1, rows: 2 });
    expect(await readdir(join(target.root, "unsent"))).toEqual(["portfolios.csv"]);
  }, 60_000);

  it("one export that cannot be scheduled does not hold up the others: the tick claims the rest, which run, and the broken one stays due", async () => {
    // A definition saved before a rule: a file name template no run can render.
    const broken = await create({
      dataType: "securities",
      format: "csv",
      destination: sftp("/isolated"),
      fileName: "broken.csv",
      schedule: { frequency: "daily", time: "07:00" },
    });
    const fine = await create({
      dataType: "securities",
      format: "csv",
      destination: sftp("/isolated"),
      fileName: "fine.csv",
      schedule: { frequency: "daily", time: "07:00" },
    });
    const item = cosmos().container("settings").item(broken.id, "export");
    const { resource } = await item.read();
    await item.replace({ ...resource, fileName: "{nope}.csv" });
    // Due a minute ago: the runtime's own timer (every second) races this test's tick for them; neither may stop at the broken one.
    const due = new Date(Date.now() - 60_000).toISOString();
    for (const { id } of [broken, fine]) await dueAt(id, due);

    const tick = await services.exports.scheduleExports().execute();
    expect(tick.claimed).toBeLessThanOrEqual(1);
    const [run, ...others] = await until(fine.id, finished);
    expect(others).toEqual([]);
    expect(run).toMatchObject({
      trigger: "schedule",
      scheduledFor: due,
      status: "succeeded",
      fileName: "fine.csv",
      rows: expected.get("securities")!.length,
    });
    expect(await readdir(join(target.root, "isolated"))).toEqual(["fine.csv"]);
    const next = (await call("GET", `${BASE}/${fine.id}`, { token })).body.data.nextRunAt as string;
    expect(next > new Date().toISOString() && next.endsWith("T07:00:00.000Z")).toBe(true);
    expect(await runs(broken.id)).toEqual([]);
    expect((await call("GET", `${BASE}/${broken.id}`, { token })).body.data.nextRunAt).toBe(due);
    expect((await call("DELETE", `${BASE}/${broken.id}`, { token })).status).toBe(204);
  }, 60_000);
});
