import { BlobServiceClient } from "@azure/storage-blob";
import SftpClient from "ssh2-sftp-client";
import { assert, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { adminToken, call, sharedSftpPort } from "./http";
import {
  createPortfolio,
  createSecurities,
  imported,
  importData,
  newIsin,
  securityRecord,
  uid,
  validationDetails,
} from "./investment-fixtures";

/*
 * The merge rule of the contract: a record updates only the fields it carries; an absent field keeps
 * its stored value and JSON null clears a nullable one; a feed's mapping without a column for a field
 * never touches it. The same through REST, an SFTP drop and a blob source.
 */

const FEEDS = "/api/v1/settings/feeds";

let token: string;
beforeAll(async () => {
  token = await adminToken();
});

const security = async (isin: string): Promise<Record<string, unknown>> => {
  const reply = await call("GET", `/api/v1/securities/${isin}`, { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
};

/** A security-master feed that maps no ticker, exchange or country column. */
const masterFeed = (name: string) => ({
  name,
  provider: "Security master vendor",
  dataType: "securities",
  format: "csv",
  filePattern: "master-*.csv",
  mapping: { isin: "ISIN", name: "Name", assetClass: "Class", currency: "Ccy" },
  status: "live",
});

/** Two securities imported through the API with ticker, exchange and country: what a feed must not wipe. */
async function apiSecurities(): Promise<[string, string]> {
  const [a, b] = [newIsin("GB"), newIsin("GB")];
  await createSecurities(token, [
    securityRecord({ isin: a, name: "Alpha plc", ticker: "ALPH", exchange: "XLON", country: "GB", currency: "GBP" }),
    securityRecord({ isin: b, name: "Beta plc", ticker: "BETA", exchange: "XLON", country: "GB", currency: "GBP" }),
  ]);
  return [a, b];
}

const masterFile = (a: string, b: string): string =>
  `ISIN,Name,Class,Ccy\n${a},Alpha Holdings plc,equity,GBP\n${b},Beta plc,equity,GBP\n`;

/** What the file changes and what it keeps: the name it carries, the tickers and exchanges it has no column for. */
async function expectMerged(a: string, b: string): Promise<void> {
  expect(await security(a)).toMatchObject({
    name: "Alpha Holdings plc",
    ticker: "ALPH",
    exchange: "XLON",
    country: "GB",
    currency: "GBP",
  });
  expect(await security(b)).toMatchObject({ name: "Beta plc", ticker: "BETA", exchange: "XLON", country: "GB" });
}

const jobOf = (feedId: string, fileName: string): Promise<Record<string, any>> =>
  vi.waitFor(
    async () => {
      const reply = await call("GET", `/api/v1/jobs?feedId=${feedId}&pageSize=100`, { token });
      expect(reply.status, reply.text).toBe(200);
      const job = (reply.body.data as Record<string, any>[]).find(
        (j) => j.fileName === fileName && j.status !== "running",
      );
      assert.isDefined(job, `the job of ${fileName}`);
      return job;
    },
    { timeout: 30_000, interval: 100 },
  );

describe("merges over REST: a record changes only what it carries", () => {
  it("securities: an absent field keeps its value, null clears it, a new security needs its required fields; counts follow the result", async () => {
    const [a] = await apiSecurities();
    // Only the name: the ticker, exchange and country an earlier import set stay.
    expect(
      await imported(token, "securities", { securities: [{ isin: a, name: "Alpha Holdings plc" }] }),
    ).toMatchObject({
      created: 0,
      updated: 1,
      unchanged: 0,
    });
    expect(await security(a)).toMatchObject({
      name: "Alpha Holdings plc",
      ticker: "ALPH",
      exchange: "XLON",
      status: "active",
    });
    // The same partial record again changes nothing.
    expect(
      await imported(token, "securities", { securities: [{ isin: a, name: "Alpha Holdings plc" }] }),
    ).toMatchObject({
      updated: 0,
      unchanged: 1,
    });
    // null clears a nullable field, and only it.
    expect(await imported(token, "securities", { securities: [{ isin: a, ticker: null }] })).toMatchObject({
      updated: 1,
    });
    expect(await security(a)).toMatchObject({
      name: "Alpha Holdings plc",
      ticker: null,
      exchange: "XLON",
      country: "GB",
    });
    // A record that would create a security needs what a security has.
    const fresh = newIsin("GB");
    expect(
      validationDetails(await importData(token, "securities", { securities: [{ isin: fresh, ticker: "NEW" }] })),
    ).toEqual([
      { field: "securities[0].name", message: "is required for a new security" },
      { field: "securities[0].assetClass", message: "is required for a new security" },
      { field: "securities[0].currency", message: "is required for a new security" },
    ]);
    expect((await call("GET", `/api/v1/securities/${fresh}`, { token })).status).toBe(404);
  });

  it("transactions: a status update keeps the amounts and dates; a changed quantity derives them again; null clears", async () => {
    const portfolio = await createPortfolio(token);
    const [secId] = await createSecurities(token, [securityRecord({ currency: "USD" })]);
    const externalId = uid("M");
    const key = { externalId, portfolioId: portfolio.id };
    await imported(token, "transactions", {
      transactions: [
        {
          ...key,
          securityId: secId,
          type: "buy",
          tradeDate: "2024-03-26",
          settlementDate: "2024-03-28",
          quantity: 100,
          price: 170.1,
          fees: 5,
          currency: "USD",
          source: "broker",
        },
      ],
    });
    const read = async () =>
      (await call("GET", `/api/v1/transactions?portfolioId=${portfolio.id}`, { token })).body.data[0];
    expect(await imported(token, "transactions", { transactions: [{ ...key, status: "settled" }] })).toMatchObject({
      updated: 1,
    });
    expect(await read()).toMatchObject({
      securityId: secId,
      type: "buy",
      status: "settled",
      tradeDate: "2024-03-26",
      settlementDate: "2024-03-28",
      quantity: 100,
      price: 170.1,
      grossAmount: 17010,
      fees: 5,
      netAmount: 17015,
      source: "broker",
    });
    expect(await imported(token, "transactions", { transactions: [{ ...key, status: "settled" }] })).toMatchObject({
      unchanged: 1,
    });
    expect(
      await imported(token, "transactions", { transactions: [{ ...key, quantity: 50, source: null }] }),
    ).toMatchObject({ updated: 1 });
    expect(await read()).toMatchObject({
      quantity: 50,
      grossAmount: 8505,
      netAmount: 8510,
      source: null,
      status: "settled",
    });
  });

  it("prices: a record without a currency keeps the stored one; a new price needs it", async () => {
    const [secId] = await createSecurities(token, [securityRecord({ currency: "CHF" })]);
    const isin = secId.slice("sec_".length);
    const price = { isin, date: "2016-05-02", type: "close", source: "merge-test" };
    await imported(token, "prices", { prices: [{ ...price, price: 10, currency: "CHF" }] });
    expect(await imported(token, "prices", { prices: [{ ...price, price: 11 }] })).toMatchObject({ updated: 1 });
    const stored = (await call("GET", `/api/v1/securities/${secId}/prices`, { token })).body.data;
    expect(stored).toEqual([expect.objectContaining({ price: 11, currency: "CHF" })]);
    expect(
      validationDetails(await importData(token, "prices", { prices: [{ ...price, date: "2016-05-03", price: 11 }] })),
    ).toEqual([{ field: "prices[0].currency", message: "is required for a new price" }]);
  });
});

describe("merges from files: a mapping without a column for a field never touches it", () => {
  it("SFTP: a security-master file without a ticker column keeps the tickers an API import set", async () => {
    const [a, b] = await apiSecurities();
    const created = await call("POST", FEEDS, { token, body: masterFeed("master over SFTP") });
    expect(created.status, created.text).toBe(201);
    const { id: feedId, sftp: login } = created.body.data;
    const sftp = new SftpClient();
    try {
      await sftp.connect({
        host: "127.0.0.1",
        port: sharedSftpPort(),
        username: login.username,
        password: login.password,
        retries: 0,
        readyTimeout: 10_000,
      });
      await sftp.put(Buffer.from(masterFile(a, b)), "/master-sftp.csv");
    } finally {
      await sftp.end().catch(() => undefined);
    }
    const job = await jobOf(feedId, "master-sftp.csv");
    expect(job).toMatchObject({
      source: "sftp",
      status: "completed",
      counts: { received: 2, accepted: 2, rejected: 0 },
    });
    await expectMerged(a, b);
  });

  it("blob source: the same file read from a customer's container keeps them too", async () => {
    const [a, b] = await apiSecurities();
    const created = await call("POST", FEEDS, { token, body: masterFeed("master from a blob source") });
    expect(created.status, created.text).toBe(201);
    const feedId = created.body.data.id as string;
    const blobs = BlobServiceClient.fromConnectionString(inject("storageConnectionString"));
    const container = blobs.getContainerClient(
      `merge-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    );
    await container.create();
    const content = masterFile(a, b);
    await container.getBlockBlobClient("drop/master-blob.csv").upload(content, Buffer.byteLength(content));
    const source = await call("POST", "/api/v1/settings/blob-sources", {
      token,
      body: {
        name: "merge drop",
        containerUrl: `${blobs.url.replace(/\/$/, "")}/${container.containerName}`,
        prefix: "drop/",
        filePattern: "master-*.csv",
        feedId,
        schedule: { every: "1d" },
      },
    });
    expect(source.status, source.text).toBe(201);
    expect((await call("POST", `/api/v1/settings/blob-sources/${source.body.data.id}/run`, { token })).status).toBe(
      202,
    );
    const job = await jobOf(feedId, "drop/master-blob.csv");
    expect(job).toMatchObject({
      source: "blob",
      status: "completed",
      counts: { received: 2, accepted: 2, rejected: 0 },
    });
    await expectMerged(a, b);
  });
});
