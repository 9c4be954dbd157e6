import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CosmosClient } from "@azure/cosmos";
import { beforeAll, describe, expect, it } from "vitest";
import { verifySecret } from "../shared/domain/secret-hash";
import { custodianPositionsFeed } from "./feed-fixtures";
import { adminToken, baseUrl, call, cosmosEndpoint, newClient, ownSftpPort, useOwnRuntime, type Reply } from "./http";
import { COSMOS_KEY } from "./investment-fixtures";
import { Client } from "ssh2";

useOwnRuntime();

const BASE = "/api/v1/settings/feeds";
const fixtures = join(__dirname, "fixtures/feeds");
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** An OpenSSH ed25519 public key line, built from a fresh key pair (the SPKI's last 32 bytes are the key). */
function openSshKey(comment: string): string {
  const spki = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" });
  const field = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  const blob = Buffer.concat([field(Buffer.from("ssh-ed25519")), field(spki.subarray(spki.length - 32))]);
  return `ssh-ed25519 ${blob.toString("base64")} ${comment}`;
}

const positionsCsv = {
  ...custodianPositionsFeed,
};

describe("System settings › feeds", () => {
  let token: string;
  const create = (body: unknown): Promise<Reply> => call("POST", BASE, { token, body });
  const stored = async (id: string): Promise<Record<string, unknown>> => {
    const client = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { resource } = await client.database("investment-data").container("settings").item(id, "feed").read();
    return resource as Record<string, unknown>;
  };
  /** Posts `file` byte for byte as the dry run's body. */
  const dryRun = async (
    id: string,
    fileName: string,
    file: Buffer,
    contentType = "application/octet-stream",
  ): Promise<Reply> => {
    const response = await fetch(`${baseUrl()}${BASE}/${id}/test?fileName=${encodeURIComponent(fileName)}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": contentType },
      body: file,
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === "" ? undefined : JSON.parse(text),
      text,
    };
  };
  const fixture = (path: string): Buffer => readFileSync(join(fixtures, path));
  const newFeed = async (body: Record<string, unknown>): Promise<string> => {
    const reply = await create(body);
    expect(reply.status, reply.text).toBe(201);
    return reply.body.data.id as string;
  };

  beforeAll(async () => {
    token = await adminToken();
  });

  it("creates a feed with its SFTP login; the password is shown once, stored only as a hash", async () => {
    const reply = await create(positionsCsv);
    expect(reply.status, reply.text).toBe(201);
    const data = reply.body.data;
    expect(data).toEqual({
      id: expect.stringMatching(/^fd_[0-9a-f]{18}$/),
      ...positionsCsv,
      validation: { onRowError: "reject-file" },
      status: "testing",
      sftp: {
        host: "127.0.0.1",
        port: 2222,
        username: `feed-${data.id.slice(3)}`,
        publicKeys: [],
        password: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      },
      lastJob: null,
      createdAt: iso,
      updatedAt: iso,
    });
    expect(reply.headers.get("location")).toBe(`${BASE}/${data.id}`);
    expect(reply.headers.get("cache-control")).toBe("no-store");

    const { password, ...sftp } = data.sftp;
    const got = await call("GET", `${BASE}/${data.id}`, { token });
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ ...data, sftp });
    const list = await call("GET", `${BASE}?page=1&pageSize=100`, { token });
    expect(list.status).toBe(200);
    expect(list.body.data).toContainEqual({ ...data, sftp });
    expect(list.body.pagination).toMatchObject({ page: 1, pageSize: 100 });
    for (const text of [got.text, list.text]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain("password");
    }

    const doc = await stored(data.id);
    expect(JSON.stringify(doc)).not.toContain(password);
    const hash = (doc.sftp as { passwordHash: string }).passwordHash;
    expect(hash).toMatch(/^scrypt\$/);
    expect(await verifySecret(password, hash)).toBe(true);

    // Another feed gets another login.
    const other = await create({ ...positionsCsv, name: "second" });
    expect(other.body.data.sftp.username).not.toBe(data.sftp.username);
    expect(other.body.data.sftp.password).not.toBe(password);
  });

  it("rotates the password: the new one is shown once and replaces the old one's hash", async () => {
    const first = (await create(positionsCsv)).body.data;
    const rotated = await call("POST", `${BASE}/${first.id}/rotate-credentials`, { token });
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    expect(rotated.body.data.sftp).toEqual({ ...first.sftp, password: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(rotated.body.data.sftp.password).not.toBe(first.sftp.password);
    const hash = ((await stored(first.id)).sftp as { passwordHash: string }).passwordHash;
    expect(await verifySecret(rotated.body.data.sftp.password, hash)).toBe(true);
    expect(await verifySecret(first.sftp.password, hash)).toBe(false);
    expect((await call("GET", `${BASE}/${first.id}`, { token })).text).not.toContain(rotated.body.data.sftp.password);
    expect((await call("POST", `${BASE}/fd_000000000000000000/rotate-credentials`, { token })).status).toBe(404);
  });

  it("eight wrong passwords for a feed's login from one address do not delay the provider's login from another past client time-outs", async () => {
    const { id, sftp } = (await create(positionsCsv)).body.data as {
      id: string;
      sftp: { username: string; password: string };
    };
    expect(id).toMatch(/^fd_/);
    /** One connection from a loopback address with one password: in, or refused, and how long it took. */
    const login = (password: string, from: string): Promise<{ outcome: "ready" | "refused"; ms: number }> =>
      new Promise((resolve) => {
        const started = Date.now();
        const conn = new Client();
        const done = (outcome: "ready" | "refused"): void => {
          conn.end();
          resolve({ outcome, ms: Date.now() - started });
        };
        conn.on("ready", () => done("ready"));
        conn.on("error", () => done("refused"));
        // 20 s: ssh2's default readyTimeout, which ssh2-sftp-client keeps: how long common clients wait for a login.
        conn.connect({
          host: "127.0.0.1",
          port: ownSftpPort(),
          localAddress: from,
          username: sftp.username,
          password,
          readyTimeout: 20_000,
        });
      });
    // This runtime's login backoff is the default one (1 s, doubling up to SFTP_AUTH_BACKOFF_MAX_SECONDS).
    const baseline = await login(sftp.password, "127.0.0.4");
    expect(baseline.outcome).toBe("ready");
    // Eight guesses from 127.0.0.2 at once: they queue there a delay apart, or are refused unchecked.
    const guesses = await Promise.all(Array.from({ length: 8 }, (_, i) => login(`wrong-${i}`, "127.0.0.2")));
    expect(guesses.map((g) => g.outcome)).toEqual(Array(8).fill("refused"));
    // The provider from elsewhere right after: in as fast as with no guesses at all (it waited 27 s before).
    const provider = await login(sftp.password, "127.0.0.3");
    expect(provider.outcome).toBe("ready");
    expect(provider.ms).toBeLessThan(baseline.ms + 3_000);
  }, 60_000);

  it("PATCH changes any field but id, re-validated as a whole; public keys in OpenSSH format", async () => {
    const id = await newFeed(positionsCsv);
    const keys = [openSshKey("ops@provider"), openSshKey("backup")];
    const patched = await call("PATCH", `${BASE}/${id}`, {
      token,
      body: { status: "live", sftp: { publicKeys: keys }, validation: { onRowError: "skip-row", maxRejectedRows: 5 } },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.data).toMatchObject({
      id,
      status: "live",
      validation: { onRowError: "skip-row", maxRejectedRows: 5 },
      sftp: { publicKeys: keys },
    });
    expect((await call("GET", `${BASE}/${id}`, { token })).body.data.sftp.publicKeys).toEqual(keys);

    const badKey = await call("PATCH", `${BASE}/${id}`, {
      token,
      body: { sftp: { publicKeys: ["ssh-ed25519 bm90IGEga2V5 x"] } },
    });
    expect(badKey.status).toBe(422);
    expect(badKey.body.error.details).toEqual([
      { field: "sftp.publicKeys[0]", message: expect.stringMatching(/OpenSSH public key/) },
    ]);
    const pem = await call("PATCH", `${BASE}/${id}`, {
      token,
      body: { sftp: { publicKeys: ["-----BEGIN PUBLIC KEY-----"] } },
    });
    expect(pem.status).toBe(422);

    // A new format that the stored options do not fit.
    const format = await call("PATCH", `${BASE}/${id}`, { token, body: { format: "json" } });
    expect(format.status).toBe(422);
    expect(format.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(["options.delimiter", "options.headerRow"]),
    );
    // A new data type the stored mapping does not fit.
    const dataType = await call("PATCH", `${BASE}/${id}`, { token, body: { dataType: "prices" } });
    expect(dataType.status).toBe(422);
    expect(dataType.body.error.details.map((d: { field: string }) => d.field)).toEqual(
      expect.arrayContaining(["mapping.portfolioCode", "mapping.quantity"]),
    );
    for (const body of [{ id: "fd_x" }, {}, { sftp: { password: "mine" } }]) {
      const reply = await call("PATCH", `${BASE}/${id}`, { token, body });
      expect(reply.status, JSON.stringify(body)).toBe(422);
    }
    // New keys with a definition that does not hold: 422, and the login keeps its keys (checked before the login is changed).
    const keysAndBadType = await call("PATCH", `${BASE}/${id}`, {
      token,
      body: { dataType: "prices", sftp: { publicKeys: [openSshKey("other")] } },
    });
    expect(keysAndBadType.status).toBe(422);
    expect((await call("GET", `${BASE}/${id}`, { token })).body.data).toMatchObject({
      dataType: "positions",
      format: "csv",
      status: "live",
      sftp: { publicKeys: keys },
    });
    expect((await call("PATCH", `${BASE}/fd_000000000000000000`, { token, body: { status: "paused" } })).status).toBe(
      404,
    );
    expect(
      (await call("PATCH", `${BASE}/fd_000000000000000000`, { token, body: { sftp: { publicKeys: [] } } })).status,
    ).toBe(404);
  });

  it("422 names an unknown target field, an option that does not fit the format, a bad pattern; bad bodies and ids are 4xx", async () => {
    const unknown = await create({ ...positionsCsv, mapping: { ...positionsCsv.mapping, marketValue: "Kurswert" } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([
      { field: "mapping.marketValue", message: expect.stringMatching(/positions/) },
    ]);
    const option = await create({ ...positionsCsv, options: { ...positionsCsv.options, recordPath: "a.b", sheet: 1 } });
    expect(option.status).toBe(422);
    expect(option.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual([
      "options.recordPath",
      "options.sheet",
    ]);
    for (const filePattern of ["../*.csv", "in/positions_*.csv", "!*.csv", ""]) {
      const reply = await create({ ...positionsCsv, filePattern });
      expect(reply.status, filePattern).toBe(422);
      expect(new Set(reply.body.error.details.map((d: { field: string }) => d.field)), filePattern).toEqual(
        new Set(["filePattern"]),
      );
    }
    const xml = await create({
      ...positionsCsv,
      format: "xml",
      options: {},
      mapping: { portfolioCode: "A", isin: "B", date: "C", quantity: "D" },
    });
    expect(xml.status).toBe(422);
    expect(xml.body.error.details).toEqual([{ field: "options.recordPath", message: "is required for xml files" }]);
    expect((await create({ ...positionsCsv, id: "fd_mine" })).status).toBe(422);
    expect((await create({ ...positionsCsv, dataType: "holdings" })).status).toBe(422);
    const notJson = await call("POST", BASE, {
      token,
      body: "name=x",
      headers: { "Content-Type": "application/json" },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("INVALID_REQUEST");
    expect((await call("GET", `${BASE}/${"x".repeat(101)}`, { token })).status).toBe(400);
    expect((await call("GET", `${BASE}/fd_000000000000000000`, { token })).status).toBe(404);
    expect((await call("GET", `${BASE}?pageSize=0`, { token })).status).toBe(400);
  });

  it("needs api.admin", async () => {
    const reader = await newClient(token, ["api.read", "api.write"]);
    expect((await call("GET", BASE, { token: reader.token })).status).toBe(403);
    expect((await call("POST", BASE, { token: reader.token, body: positionsCsv })).status).toBe(403);
    expect((await call("GET", BASE)).status).toBe(401);
  });

  it("DELETE removes the feed (204), then 404", async () => {
    const id = await newFeed(positionsCsv);
    expect((await call("DELETE", `${BASE}/${id}`, { token })).status).toBe(204);
    expect((await call("GET", `${BASE}/${id}`, { token })).status).toBe(404);
    expect((await call("DELETE", `${BASE}/${id}`, { token })).status).toBe(404);
    expect(
      (await call("POST", `${BASE}/${id}/test?fileName=custodian-positions-1.csv`, { token, body: "x" })).status,
    ).toBe(404);
  });

  describe("dry run (POST {id}/test): parses, maps and validates the raw body; writes nothing", () => {
    it("csv: windows-1252, ; with a header on row 4, German numbers and dates, sent as text/csv byte for byte; a bad ISIN is a row error", async () => {
      const id = await newFeed(positionsCsv);
      const reply = await dryRun(
        id,
        "custodian-positions-20241231.csv",
        fixture("csv/custodian-positions-cp1252.csv"),
        "text/csv; charset=windows-1252",
      );
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({
        received: 5,
        valid: 4,
        rejected: 1,
        // The feed rejects a file on any row error (the default): delivered, this file would be quarantined.
        verdict: "rejected",
        reason: "1 row rejected; the feed rejects the whole file on any row error",
        errors: [{ row: 5, field: "isin", column: "ISIN", message: "ISIN check digit is wrong" }],
        errorsTruncated: false,
        preview: [
          { portfolioCode: "DE-4711-01", isin: "DE0007164600", date: "2024-12-31", quantity: 1250, currency: "EUR" },
          { portfolioCode: "DE-4711-01", isin: "CH0038863350", date: "2024-12-31", quantity: 400, currency: "CHF" },
          { portfolioCode: "DE-4711-01", isin: "XS2346207892", date: "2024-12-31", quantity: 50000, currency: "EUR" },
          { portfolioCode: "DE-4711-02", isin: "US0378331005", date: "2024-12-31", quantity: 300, currency: "USD" },
        ],
      });
    });

    it("csv: pipe-delimited transactions; a type missing from the map is a row error with row, field and column", async () => {
      const id = await newFeed({
        name: "Broker trades",
        provider: "Broker",
        dataType: "transactions",
        format: "csv",
        filePattern: "transactions*.csv",
        options: { delimiter: "|" },
        mapping: {
          externalId: "trade_id",
          portfolioCode: "portfolio_code",
          tradeDate: "trade_date",
          settlementDate: "settlement_date",
          type: { source: "type", map: { BUY: "buy", SELL: "sell" } },
          isin: "isin",
          quantity: "quantity",
          price: "price",
          currency: "currency",
          grossAmount: "gross_amount",
          source: { value: "broker-sftp" },
        },
      });
      const reply = await dryRun(id, "transactions-pipe.csv", fixture("csv/transactions-pipe.csv"), "text/plain");
      expect(reply.status, reply.text).toBe(200);
      const data = reply.body.data;
      expect(data).toMatchObject({ received: 4, valid: 3, rejected: 1 });
      expect(data.errors).toEqual([
        { row: 4, field: "type", column: "type", message: expect.stringMatching(/"DIVIDEND"/) },
      ]);
      expect(data.preview[0]).toEqual({
        externalId: "T-20241202-001",
        portfolioCode: "PF-GROWTH-01",
        tradeDate: "2024-12-02",
        settlementDate: "2024-12-04",
        type: "buy",
        isin: "US0378331005",
        quantity: 100,
        price: 239.59,
        currency: "USD",
        grossAmount: 23959,
        source: "broker-sftp",
      });
      expect(data.preview.map((r: { externalId: string }) => r.externalId)).toEqual([
        "T-20241202-001",
        "T-20241202-002",
        "T-20241203-001",
      ]);
    });

    it("json: records at recordPath (the NAV file as fund holdings), constants, nested paths", async () => {
      const id = await newFeed({
        name: "NAVs",
        provider: "Fund Services Luxembourg",
        dataType: "positions",
        format: "json",
        filePattern: "*nav*.json",
        options: { recordPath: "data.navs" },
        mapping: {
          portfolioCode: { value: "FUND-LU" },
          securityId: "fundCode",
          date: "navDate",
          quantity: "sharesOutstanding",
          costBasis: "totalNetAssets",
          currency: "currency",
        },
      });
      const reply = await dryRun(id, "fund-admin-nav.json", fixture("json/fund-admin-nav.json"), "application/json");
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({
        received: 3,
        valid: 3,
        rejected: 0,
        verdict: "accepted",
        reason: "3 rows valid",
        errors: [],
        errorsTruncated: false,
        preview: [
          {
            portfolioCode: "FUND-LU",
            securityId: "GLB-EQ-A",
            date: "2024-12-31",
            quantity: 1250340.125,
            costBasis: 178025483.61,
            currency: "EUR",
          },
          {
            portfolioCode: "FUND-LU",
            securityId: "GLB-EQ-I",
            date: "2024-12-31",
            quantity: 40210,
            costBasis: 42946288.4,
            currency: "USD",
          },
          {
            portfolioCode: "FUND-LU",
            securityId: "EUR-BD-R",
            date: "2024-12-31",
            quantity: 310500,
            costBasis: 30599775,
            currency: "CHF",
          },
        ],
      });
      // The same file mapped to prices: the fund administrator's ISINs fail the import's own check, one row error each.
      const prices = await newFeed({
        name: "NAV prices",
        provider: "Fund Services Luxembourg",
        dataType: "prices",
        format: "json",
        filePattern: "*nav*.json",
        options: { recordPath: "data.navs" },
        mapping: {
          isin: "isin",
          date: "navDate",
          price: "navPerShare",
          currency: "currency",
          type: { value: "nav" },
          source: { value: "fund-admin" },
        },
      });
      const rejected = await dryRun(prices, "fund-admin-nav.json", fixture("json/fund-admin-nav.json"));
      expect(rejected.body.data).toMatchObject({ received: 3, valid: 0, rejected: 3, preview: [] });
      expect(rejected.body.data.errors[0]).toEqual({
        row: 1,
        field: "isin",
        column: "isin",
        message: "ISIN check digit is wrong",
      });
    });

    it("fix: position reports selected by msgTypes, repeating groups by selector, heartbeats and logons skipped", async () => {
      const id = await newFeed({
        name: "Custodian FIX",
        provider: "Custodian",
        dataType: "positions",
        format: "fix",
        filePattern: "*.fix",
        options: { msgTypes: ["AP"], dateFormat: "yyyyMMdd" },
        mapping: {
          portfolioCode: "453[452=38].448",
          isin: "48",
          date: "715",
          quantity: "702[703=TQ].704",
          currency: "15",
        },
      });
      const reply = await dryRun(id, "position-reports-soh.fix", fixture("fix/position-reports-soh.fix"));
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({
        received: 2,
        valid: 2,
        rejected: 0,
        verdict: "accepted",
        reason: "2 rows valid",
        errors: [],
        errorsTruncated: false,
        preview: [
          { portfolioCode: "PF-GROWTH-01", isin: "US0378331005", date: "2024-12-31", quantity: 400, currency: "USD" },
          { portfolioCode: "PF-INCOME-02", isin: "CH0038863350", date: "2024-12-31", quantity: 0, currency: "CHF" },
        ],
      });
    });

    it("xlsx: a workbook written by SheetJS reaches the reader byte for byte; real dates and numbers", async () => {
      const id = await newFeed({
        name: "Positions workbook",
        provider: "Custodian",
        dataType: "positions",
        format: "xlsx",
        filePattern: "positions*.xlsx",
        options: { sheet: "Positions" },
        mapping: {
          portfolioCode: "Portfolio",
          isin: "ISIN",
          quantity: "Quantity",
          date: "Position Date",
          costBasis: "Market Value",
        },
      });
      const reply = await dryRun(
        id,
        "positions.xlsx",
        fixture("xlsx/positions.xlsx"),
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      );
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({
        received: 3,
        valid: 3,
        rejected: 0,
        verdict: "accepted",
        reason: "3 rows valid",
        errors: [],
        errorsTruncated: false,
        preview: [
          { portfolioCode: "PF-001", isin: "US0378331005", quantity: 1500, date: "2026-03-31", costBasis: 283875 },
          { portfolioCode: "PF-001", isin: "CH0038863350", quantity: 200.5, date: "2026-03-31", costBasis: 19268.05 },
          { portfolioCode: "PF-002", isin: "DE0007164600", quantity: 75, date: "2026-04-01", costBasis: 12826.5 },
        ],
      });
    });

    it("xml: records at recordPath, namespaces stripped, attributes by @name; an absent optional value stays absent", async () => {
      const id = await newFeed({
        name: "semt.002",
        provider: "Custodian",
        dataType: "positions",
        format: "xml",
        filePattern: "custody-statement-*.xml",
        options: { recordPath: "Document.SctiesBalCtdyRpt.BalForAcct" },
        mapping: {
          portfolioCode: { value: "PF-001" },
          isin: "FinInstrmId.ISIN",
          date: { value: "2026-03-31" },
          quantity: "AggtBal.Qty.Qty.Unit",
          currency: "PricDtls.Val.Amt.@Ccy",
          costBasis: "AcctBaseCcyAmts.HldgVal.Amt",
        },
      });
      const reply = await dryRun(
        id,
        "custody-statement-semt002.xml",
        fixture("xml/custody-statement-semt002.xml"),
        "application/xml",
      );
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body.data).toEqual({
        received: 3,
        valid: 3,
        rejected: 0,
        verdict: "accepted",
        reason: "3 rows valid",
        errors: [],
        errorsTruncated: false,
        preview: [
          {
            portfolioCode: "PF-001",
            isin: "US0378331005",
            date: "2026-03-31",
            quantity: 1500,
            currency: "USD",
            costBasis: 262108.5,
          },
          { portfolioCode: "PF-001", isin: "CH0038863350", date: "2026-03-31", quantity: 200.5, currency: "CHF" },
          { portfolioCode: "PF-001", isin: "DE0007164600", date: "2026-03-31", quantity: 75, currency: "EUR" },
        ],
      });
    });

    it("a mapped column the header lacks is one row-0 error naming it and listing the header; a file with no valid row is rejected whatever onRowError says", async () => {
      const prices = {
        name: "Closing prices (German header)",
        provider: "Vendor",
        dataType: "prices",
        format: "csv",
        filePattern: "prices_*.csv",
        options: { delimiter: ";" },
        mapping: {
          isin: "ISIN",
          date: "Datum",
          price: "Close",
          currency: { value: "EUR" },
          type: { value: "close" },
          source: { value: "Vendor" },
        },
        validation: { onRowError: "skip-row" },
      };
      const id = await newFeed(prices);
      const file = Buffer.from(
        [
          "ISIN;Date;Close",
          ...["DE0007164600", "CH0038863350", "US0378331005", "XS2346207892"].map((i) => `${i};2024-03-28;10`),
        ].join("\n"),
      );
      const reply = await dryRun(id, "prices_20240328.csv", file);
      expect(reply.status, reply.text).toBe(200);
      // Was: verdict "accepted" with 0 valid, 4 rejected and four copies of `column "Datum" has no value`.
      expect(reply.body.data).toEqual({
        received: 4,
        valid: 0,
        rejected: 4,
        verdict: "rejected",
        reason: `the file's header lacks the mapped column "Datum"; the file does not match the feed's mapping`,
        errors: [
          {
            row: 0,
            field: "date",
            column: "Datum",
            message: `the mapped column "Datum" is not in the file's header (its columns: "ISIN", "Date", "Close")`,
          },
        ],
        errorsTruncated: false,
        preview: [],
      });

      // skip-row and every row bad: nothing would load, so the file is rejected too.
      const allBad = await dryRun(
        id,
        "prices_20240329.csv",
        Buffer.from("ISIN;Datum;Close\nDE0007164601;2024-03-29;10\nDE0007164600;2024-03-29;n/a\n"),
      );
      expect(allBad.body.data).toMatchObject({
        received: 2,
        valid: 0,
        rejected: 2,
        verdict: "rejected",
        reason: "no row is valid (2 rows rejected)",
      });
      const empty = await dryRun(id, "prices_20240330.csv", Buffer.from("ISIN;Datum;Close\n"));
      expect(empty.body.data).toMatchObject({ received: 0, verdict: "rejected", reason: "the file has no data rows" });
    });

    it("a value no store can hold is a row error with row, field and column: NUL, a noncharacter, a date before 0001, a price past 12 decimals", async () => {
      const id = await newFeed({
        name: "Security master with junk",
        provider: "Vendor",
        dataType: "securities",
        format: "csv",
        filePattern: "master_*.csv",
        mapping: { isin: "ISIN", name: "Name", assetClass: { value: "equity" }, currency: "Ccy", ticker: "Ticker" },
        validation: { onRowError: "skip-row" },
      });
      const master = await dryRun(
        id,
        "master_1.csv",
        Buffer.from(
          "ISIN,Name,Ccy,Ticker\nDE0007164600,SAP SE,EUR,SAP\nCH0038863350,Nest\u0000le,CHF,NESN\nUS0378331005,Apple,USD,AA\uFFFEPL\n",
        ),
      );
      expect(master.body.data).toMatchObject({ received: 3, valid: 1, rejected: 2, verdict: "accepted" });
      expect(master.body.data.errors).toEqual([
        {
          row: 2,
          field: "name",
          column: "Name",
          message: "contains U+0000 (NUL) at character 5, which no store can hold",
        },
        {
          row: 3,
          field: "ticker",
          column: "Ticker",
          message: "contains the Unicode noncharacter U+FFFE at character 3, which is not for interchange",
        },
      ]);
      const prices = await newFeed({
        name: "Prices with junk",
        provider: "Vendor",
        dataType: "prices",
        format: "csv",
        filePattern: "px_*.csv",
        mapping: {
          isin: "ISIN",
          date: "Date",
          price: "Close",
          currency: "Ccy",
          type: { value: "close" },
          source: { value: "v" },
        },
        validation: { onRowError: "skip-row" },
      });
      const px = await dryRun(
        prices,
        "px_1.csv",
        Buffer.from(
          "ISIN,Date,Close,Ccy\nDE0007164600,0000-01-01,10,EUR\nDE0007164600,2024-03-28,0.1234567890123,EUR\nDE0007164600,2024-03-28,1.5e-29,EUR\nDE0007164600,2024-03-28,0.123456789012,EUR\n",
        ),
      );
      expect(px.body.data).toMatchObject({ received: 4, valid: 1, rejected: 3, verdict: "accepted" });
      expect(px.body.data.errors).toEqual([
        { row: 1, field: "date", column: "Date", message: "must be a date from 0001-01-01 to 9999-12-31" },
        { row: 2, field: "price", column: "Close", message: "must have at most 12 decimal places" },
        { row: 3, field: "price", column: "Close", message: "must have at most 12 decimal places" },
      ]);
    });

    it("422 on a file name the pattern does not match, on an unreadable file (with the row), and 413 over 10 MB", async () => {
      const id = await newFeed(positionsCsv);
      const name = await dryRun(id, "positions.xlsx", fixture("csv/custodian-positions-cp1252.csv"));
      expect(name.status).toBe(422);
      expect(name.body.error.details).toEqual([
        { field: "fileName", message: expect.stringMatching(/custodian-positions-\*\.csv/) },
      ]);
      const missing = await call("POST", `${BASE}/${id}/test`, { token, body: "x" });
      expect(missing.status).toBe(400);
      expect(missing.body.error.details[0].field).toBe("fileName");

      const ragged = Buffer.from(
        "header\r\n\r\n\r\nDepot;ISIN;Stichtag\r\nA;DE0007164600;31.12.2024\r\nB;DE0007164600\r\n",
        "latin1",
      );
      const bad = await dryRun(id, "custodian-positions-1.csv", ragged);
      expect(bad.status, bad.text).toBe(422);
      expect(bad.body.error).toMatchObject({
        code: "VALIDATION_ERROR",
        message: expect.stringMatching(/record 2/),
        details: [{ field: "file", message: expect.stringMatching(/row 2/) }],
      });

      const json = await newFeed({
        name: "j",
        provider: "p",
        dataType: "prices",
        format: "json",
        filePattern: "*.json",
        options: { recordPath: "data.navs" },
        mapping: { isin: "isin", date: "d", price: "p", currency: "c", type: { value: "nav" }, source: { value: "s" } },
      });
      const broken = await dryRun(json, "x.json", Buffer.from('{"data":{"navs":[{"isin": tru'));
      expect(broken.status).toBe(422);
      expect(broken.body.error.details[0].field).toBe("file");
      const xlsx = await newFeed({
        name: "x",
        provider: "p",
        dataType: "positions",
        format: "xlsx",
        filePattern: "*.xlsx",
        mapping: { portfolioCode: "A", isin: "B", date: "C", quantity: "D" },
      });
      expect((await dryRun(xlsx, "a.xlsx", Buffer.from("not a zip at all"))).status).toBe(422);
      const xml = await newFeed({
        name: "x",
        provider: "p",
        dataType: "positions",
        format: "xml",
        filePattern: "*.xml",
        options: { recordPath: "lolz.lol" },
        mapping: { portfolioCode: "A", isin: "B", date: "C", quantity: "D" },
      });
      for (const hostile of ["xml/billion-laughs.xml", "xml/external-entity.xml"]) {
        const reply = await dryRun(xml, "hostile.xml", fixture(hostile));
        expect(reply.status, hostile).toBe(422);
        expect(reply.body.error.details[0], hostile).toMatchObject({
          field: "file",
          message: expect.stringMatching(/DOCTYPE/i),
        });
      }
      const fix = await newFeed({
        name: "f",
        provider: "p",
        dataType: "positions",
        format: "fix",
        filePattern: "*.fix",
        options: { msgTypes: ["AP"] },
        mapping: { portfolioCode: "1", isin: "48", date: "715", quantity: "702.704" },
      });
      const tampered = Buffer.from(
        fixture("fix/position-reports-soh.fix").toString("latin1").replace("704=300", "704=900"),
        "latin1",
      );
      const checksum = await dryRun(fix, "p.fix", tampered);
      expect(checksum.status, checksum.text).toBe(422);
      expect(checksum.body.error.details[0]).toMatchObject({
        field: "file",
        message: expect.stringMatching(/checksum/i),
      });

      const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x41);
      const tooLarge = await dryRun(id, "custodian-positions-1.csv", huge);
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    });

    it("wrote nothing: no securities, prices, transactions or jobs exist after the dry runs", async () => {
      const securities = await call("GET", "/api/v1/securities?pageSize=100", { token });
      expect(securities.status).toBe(200);
      expect(securities.body.data).toEqual([]);
      const transactions = await call("GET", "/api/v1/transactions?pageSize=100", { token });
      expect(transactions.status, transactions.text).toBe(200);
      expect(transactions.body.data).toEqual([]);
      const jobs = await call("GET", "/api/v1/jobs?pageSize=100", { token });
      expect(jobs.status, jobs.text).toBe(200);
      expect(jobs.body.data).toEqual([]);
      const client = new CosmosClient({
        endpoint: cosmosEndpoint(),
        key: COSMOS_KEY,
        connectionPolicy: { enableEndpointDiscovery: false },
      });
      for (const container of ["positions", "prices", "transactions", "securities", "jobs"]) {
        const { resources } = await client
          .database("investment-data")
          .container(container)
          .items.query("SELECT VALUE COUNT(1) FROM c")
          .fetchAll();
        expect(resources, container).toEqual([0]);
      }
    });
  });
});
