import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call } from "./http";
import {
  createPortfolio,
  createSecurities,
  imported,
  listAll,
  newIsin,
  price,
  securityRecord,
  uid,
} from "./investment-fixtures";

// The read endpoints with every filter, pagination and their 400/404 answers. Lists are shared by
// all tests, so each check narrows to this test's own records. Dates: 2016.
describe("reads", () => {
  let token: string;
  beforeAll(async () => {
    token = await adminToken();
  });

  const get = (path: string) => call("GET", path, { token });
  const ids = (items: { id: string }[]): string[] => items.map((i) => i.id);

  describe("securities", () => {
    const prefix = uid("Zq").replace(/-/g, "");
    let records: ReturnType<typeof securityRecord>[];
    let secIds: string[];

    beforeAll(async () => {
      records = [
        securityRecord({
          name: `${prefix} Alpha Equity`,
          ticker: `${prefix}A`.slice(-30),
          assetClass: "equity",
          currency: "JPY",
        }),
        securityRecord({
          name: `${prefix} Beta Bond`,
          ticker: `${prefix}B`.slice(-30),
          assetClass: "bond",
          currency: "JPY",
        }),
        securityRecord({
          name: `${prefix} Gamma Bond`,
          ticker: `${prefix}C`.slice(-30),
          assetClass: "bond",
          currency: "CHF",
        }),
        securityRecord({
          name: `${prefix} Delta ETF`,
          ticker: `${prefix}D`.slice(-30),
          assetClass: "etf",
          currency: "CHF",
        }),
        securityRecord({
          name: `${prefix}Other Fund`,
          ticker: `${prefix}E`.slice(-30),
          assetClass: "fund",
          currency: "USD",
        }),
      ];
      secIds = await createSecurities(token, records);
    });

    it("q: name starts with, case-insensitive", async () => {
      const all = await get(`/api/v1/securities?q=${encodeURIComponent(prefix.toLowerCase())}`);
      expect(all.status).toBe(200);
      expect(ids(all.body.data).sort()).toEqual([...secIds].sort());
      expect(all.body.pagination).toEqual({ page: 1, pageSize: 50, totalItems: 5, totalPages: 1 });
      const upper = await get(`/api/v1/securities?q=${encodeURIComponent(`${prefix.toUpperCase()} B`)}`);
      expect(ids(upper.body.data)).toEqual([secIds[1]]);
      // "starts with", not "contains"
      expect(
        (
          await get(`/api/v1/securities?q=${encodeURIComponent("Alpha Equity")}&assetClass=equity&currency=JPY`)
        ).body.data.some((s: { id: string }) => s.id === secIds[0]),
      ).toBe(false);
    });

    it("isin, ticker, assetClass and currency filters, each and combined", async () => {
      const byIsin = await get(`/api/v1/securities?isin=${records[2]?.isin}`);
      expect(ids(byIsin.body.data)).toEqual([secIds[2]]);
      const byTicker = await get(`/api/v1/securities?ticker=${encodeURIComponent(records[3]?.ticker ?? "")}`);
      expect(ids(byTicker.body.data)).toEqual([secIds[3]]);
      const q = `q=${encodeURIComponent(prefix)}`;
      const bonds = await get(`/api/v1/securities?${q}&assetClass=bond`);
      expect(ids(bonds.body.data).sort()).toEqual([secIds[1], secIds[2]].sort());
      expect(bonds.body.data.every((s: { assetClass: string }) => s.assetClass === "bond")).toBe(true);
      const chf = await get(`/api/v1/securities?${q}&currency=CHF`);
      expect(ids(chf.body.data).sort()).toEqual([secIds[2], secIds[3]].sort());
      const chfBonds = await get(`/api/v1/securities?${q}&currency=CHF&assetClass=bond`);
      expect(ids(chfBonds.body.data)).toEqual([secIds[2]]);
      const none = await get(`/api/v1/securities?${q}&currency=USD&assetClass=bond`);
      expect(none.body.data).toEqual([]);
      expect(none.body.pagination.totalItems).toBe(0);
      const isinAndOtherCurrency = await get(`/api/v1/securities?isin=${records[2]?.isin}&currency=JPY`);
      expect(isinAndOtherCurrency.body.data).toEqual([]);
      // The currency filter alone returns only that currency (the list is shared, so check them all).
      const allChf = await listAllPages(`/api/v1/securities?currency=CHF`);
      expect(allChf.every((s) => s.currency === "CHF")).toBe(true);
      expect(ids(allChf)).toEqual(expect.arrayContaining([secIds[2], secIds[3]]));
    });

    it("page and pageSize, ordered by id", async () => {
      const q = `q=${encodeURIComponent(prefix)}`;
      const sorted = [...secIds].sort();
      const page1 = await get(`/api/v1/securities?${q}&pageSize=2&page=1`);
      const page2 = await get(`/api/v1/securities?${q}&pageSize=2&page=2`);
      const page3 = await get(`/api/v1/securities?${q}&pageSize=2&page=3`);
      expect(page1.body.pagination).toEqual({ page: 1, pageSize: 2, totalItems: 5, totalPages: 3 });
      expect(page3.body.pagination).toEqual({ page: 3, pageSize: 2, totalItems: 5, totalPages: 3 });
      expect([...ids(page1.body.data), ...ids(page2.body.data), ...ids(page3.body.data)]).toEqual(sorted);
      const beyond = await get(`/api/v1/securities?${q}&pageSize=2&page=4`);
      expect(beyond.status).toBe(200);
      expect(beyond.body.data).toEqual([]);
    });

    it("get by id or ISIN; 404 when absent", async () => {
      const byId = await get(`/api/v1/securities/${secIds[0]}`);
      expect(byId.status).toBe(200);
      expect(byId.body.data).toMatchObject({
        id: secIds[0],
        isin: records[0]?.isin,
        name: records[0]?.name,
        ticker: records[0]?.ticker,
        currency: "JPY",
      });
      expect((await get(`/api/v1/securities/${records[0]?.isin}`)).body.data).toEqual(byId.body.data);
      for (const missing of ["sec_does_not_exist", newIsin()]) {
        const reply = await get(`/api/v1/securities/${missing}`);
        expect(reply.status, missing).toBe(404);
        expect(reply.body.error.code).toBe("NOT_FOUND");
      }
    });

    it.each([
      ["isin=US037833100", "isin"],
      ["isin=US0378331006", "isin"],
      ["assetClass=stock", "assetClass"],
      ["currency=ABC", "currency"],
      ["pageSize=201", "pageSize"],
      ["page=0", "page"],
    ])("400 INVALID_REQUEST naming the parameter for %s", async (query, field) => {
      const reply = await get(`/api/v1/securities?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe("INVALID_REQUEST");
      expect(reply.body.error.details[0].field).toBe(field);
    });
  });

  async function listAllPages(path: string): Promise<{ id: string; currency: string }[]> {
    const out: { id: string; currency: string }[] = [];
    for (let page = 1; ; page++) {
      const reply = await get(`${path}&pageSize=200&page=${page}`);
      expect(reply.status).toBe(200);
      out.push(...reply.body.data);
      if (page >= reply.body.pagination.totalPages) return out;
    }
  }

  describe("prices", () => {
    let isin: string;
    let secId: string;
    beforeAll(async () => {
      const sec = securityRecord({ currency: "USD" });
      isin = sec.isin;
      [secId] = await createSecurities(token, [sec]);
      await imported(token, "prices", {
        prices: [
          price(isin, "2016-01-08", 14, { currency: "USD" }),
          price(isin, "2016-01-04", 10, { currency: "USD" }),
          price(isin, "2016-01-05", 11, { currency: "USD" }),
          price(isin, "2016-01-05", 10.9, { currency: "USD", type: "mid" }),
          price(isin, "2016-01-06", 12, { currency: "USD" }),
          price(isin, "2016-01-07", 13, { currency: "USD", type: "bid", source: "broker" }),
          price(isin, "2016-01-07", 13.1, { currency: "USD", type: "ask", source: "broker" }),
          price(isin, "2016-01-07", 13.05, { currency: "USD", type: "nav", source: "admin" }),
        ],
      });
    });

    it("sorted by date; from and to inclusive; type filter; combined", async () => {
      const all = await get(`/api/v1/securities/${secId}/prices`);
      expect(all.status).toBe(200);
      expect(all.body.data.map((p: { date: string }) => p.date)).toEqual([
        "2016-01-04",
        "2016-01-05",
        "2016-01-05",
        "2016-01-06",
        "2016-01-07",
        "2016-01-07",
        "2016-01-07",
        "2016-01-08",
      ]);
      expect(all.body.pagination).toMatchObject({
        page: 1,
        pageSize: 50,
        totalItems: 8,
        totalPages: 1,
        nextCursor: null,
      });
      expect(all.body.data[0]).toMatchObject({
        securityId: secId,
        isin,
        date: "2016-01-04",
        price: 10,
        currency: "USD",
        type: "close",
        source: "test-feed",
      });

      const range = await get(`/api/v1/securities/${secId}/prices?from=2016-01-05&to=2016-01-07`);
      expect(range.body.data.map((p: { date: string }) => p.date)).toEqual([
        "2016-01-05",
        "2016-01-05",
        "2016-01-06",
        "2016-01-07",
        "2016-01-07",
        "2016-01-07",
      ]);
      const oneDay = await get(`/api/v1/securities/${secId}/prices?from=2016-01-06&to=2016-01-06`);
      expect(oneDay.body.data.map((p: { price: number }) => p.price)).toEqual([12]);
      const fromOnly = await get(`/api/v1/securities/${secId}/prices?from=2016-01-07`);
      expect(fromOnly.body.data).toHaveLength(4);
      const toOnly = await get(`/api/v1/securities/${secId}/prices?to=2016-01-05`);
      expect(toOnly.body.data.map((p: { price: number }) => p.price)).toEqual([10, 11, 10.9]);

      for (const [type, expected] of [
        ["close", [10, 11, 12, 14]],
        ["mid", [10.9]],
        ["bid", [13]],
        ["ask", [13.1]],
        ["nav", [13.05]],
      ] as const) {
        const reply = await get(`/api/v1/securities/${secId}/prices?type=${type}`);
        expect(
          reply.body.data.map((p: { price: number }) => p.price),
          type,
        ).toEqual(expected);
        expect(reply.body.data.every((p: { type: string }) => p.type === type)).toBe(true);
      }
      const combined = await get(`/api/v1/securities/${secId}/prices?type=close&from=2016-01-05&to=2016-01-08`);
      expect(combined.body.data.map((p: { price: number }) => p.price)).toEqual([11, 12, 14]);
      // By ISIN in the path too.
      expect(
        (await get(`/api/v1/securities/${isin}/prices?type=close&from=2016-01-05&to=2016-01-08`)).body.data,
      ).toEqual(combined.body.data);
    });

    it("cursor pagination walks every price once, in date order", async () => {
      const first = await get(`/api/v1/securities/${secId}/prices?pageSize=3`);
      expect(first.body.pagination).toMatchObject({ pageSize: 3, totalItems: 8, totalPages: 3 });
      expect(typeof first.body.pagination.nextCursor).toBe("string");
      const walked = await listAll(token, `/api/v1/securities/${secId}/prices`, 3);
      const all = (await get(`/api/v1/securities/${secId}/prices`)).body.data;
      expect(walked).toEqual(all);
      const filtered = await listAll(token, `/api/v1/securities/${secId}/prices?type=close`, 1);
      expect(filtered.map((p) => p.price)).toEqual([10, 11, 12, 14]);
      // page numbers work as well
      const page2 = await get(`/api/v1/securities/${secId}/prices?pageSize=3&page=2`);
      expect(page2.body.data).toEqual(all.slice(3, 6));
      expect(page2.body.pagination.page).toBe(2);
    });

    it("404 for an unknown security; 400 naming the parameter for bad values", async () => {
      expect((await get(`/api/v1/securities/sec_none/prices`)).status).toBe(404);
      expect((await get(`/api/v1/securities/${newIsin()}/prices`)).status).toBe(404);
      for (const [query, field] of [
        ["type=last", "type"],
        ["from=2016-02-30", "from"],
        ["to=yesterday", "to"],
        ["from=2016-01-08&to=2016-01-04", "from"],
        ["pageSize=0", "pageSize"],
        ["cursor=not-a-cursor", "cursor"],
      ] as const) {
        const reply = await get(`/api/v1/securities/${secId}/prices?${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.body.error.code).toBe("INVALID_REQUEST");
        expect(reply.body.error.details[0].field, query).toBe(field);
      }
    });
  });

  describe("transactions", () => {
    let p1: string;
    let p2: string;
    let s1: string;
    let s2: string;
    const tag = uid("TX");
    beforeAll(async () => {
      p1 = (await createPortfolio(token)).id;
      p2 = (await createPortfolio(token)).id;
      [s1, s2] = await createSecurities(token, [securityRecord(), securityRecord()]);
      const t = (
        n: number,
        portfolioId: string,
        securityId: string | undefined,
        type: string,
        status: string,
        tradeDate: string,
      ) => ({
        externalId: `${tag}-${n}`,
        portfolioId,
        ...(securityId !== undefined ? { securityId } : {}),
        type,
        status,
        tradeDate,
        ...(type === "buy" || type === "sell" ? { quantity: 10, price: 1 } : {}),
        netAmount: 10,
        currency: "EUR",
      });
      await imported(token, "transactions", {
        transactions: [
          t(1, p1, s1, "buy", "settled", "2016-02-03"),
          t(2, p1, s1, "sell", "pending", "2016-02-05"),
          t(3, p1, s2, "buy", "pending", "2016-02-01"),
          t(4, p1, undefined, "fee", "settled", "2016-02-05"),
          t(5, p1, s2, "dividend", "failed", "2016-02-10"),
          t(6, p2, s1, "buy", "settled", "2016-02-04"),
          t(7, p2, s2, "sell", "cancelled", "2016-02-02"),
          t(8, p2, undefined, "deposit", "pending", "2016-01-31"),
        ],
      });
    });
    const ext = (items: { externalId: string }[]): number[] =>
      items.map((t) => Number(t.externalId.slice(tag.length + 1)));
    const list = async (query: string): Promise<number[]> => ext(await listAll(token, `/api/v1/transactions?${query}`));

    it("portfolioId, sorted by tradeDate", async () => {
      // 3 (02-01), 1 (02-03), 2 and 4 (both 02-05, either order), 5 (02-10)
      const p1List = await list(`portfolioId=${p1}`);
      expect([...p1List.slice(0, 2), ...p1List.slice(2, 4).sort(), p1List[4]]).toEqual([3, 1, 2, 4, 5]);
      const dates = (await listAll(token, `/api/v1/transactions?portfolioId=${p1}`)).map((t) => t.tradeDate as string);
      expect([...dates].sort()).toEqual(dates);
      expect(await list(`portfolioId=${p2}`)).toEqual([8, 7, 6]);
    });

    it("securityId, type, status and the inclusive tradeDate range, each and combined", async () => {
      expect(await list(`securityId=${s1}`)).toEqual([1, 6, 2]);
      expect(await list(`securityId=${s2}`)).toEqual([3, 7, 5]);
      expect(await list(`portfolioId=${p1}&type=buy`)).toEqual([3, 1]);
      expect(await list(`securityId=${s1}&type=buy`)).toEqual([1, 6]);
      expect(await list(`portfolioId=${p1}&status=settled`)).toEqual([1, 4]);
      expect(await list(`securityId=${s2}&status=cancelled`)).toEqual([7]);
      expect(await list(`portfolioId=${p1}&from=2016-02-03&to=2016-02-05`).then((l) => l.sort())).toEqual([1, 2, 4]);
      expect(await list(`portfolioId=${p2}&from=2016-02-02`)).toEqual([7, 6]);
      expect(await list(`portfolioId=${p2}&to=2016-02-02`)).toEqual([8, 7]);
      expect(
        await list(`portfolioId=${p1}&securityId=${s1}&type=sell&status=pending&from=2016-02-05&to=2016-02-05`),
      ).toEqual([2]);
      expect(await list(`portfolioId=${p2}&securityId=${s1}&status=pending`)).toEqual([]);
      expect(await list(`portfolioId=${p1}&type=fee`)).toEqual([4]);
      const deposit = await listAll(token, `/api/v1/transactions?portfolioId=${p2}&type=deposit`);
      expect(deposit).toHaveLength(1);
      expect(deposit[0]).toMatchObject({ securityId: null, status: "pending", tradeDate: "2016-01-31" });
    });

    it("page/pageSize and cursor pagination", async () => {
      const page1 = await get(`/api/v1/transactions?portfolioId=${p1}&pageSize=2`);
      expect(page1.body.pagination).toMatchObject({ page: 1, pageSize: 2, totalItems: 5, totalPages: 3 });
      const page3 = await get(`/api/v1/transactions?portfolioId=${p1}&pageSize=2&page=3`);
      expect(ext(page3.body.data)).toEqual([5]);
      expect(page3.body.pagination.nextCursor).toBeNull();
      const walked = await listAll(token, `/api/v1/transactions?portfolioId=${p1}`, 2);
      expect(ext(walked)).toEqual(await list(`portfolioId=${p1}`));
      expect(new Set(ext(walked)).size).toBe(5);
      const both = await get(
        `/api/v1/transactions?portfolioId=${p1}&page=1&cursor=${page1.body.pagination.nextCursor}`,
      );
      expect(both.status).toBe(400);
    });

    it.each([
      ["type=swap", "type"],
      ["status=done", "status"],
      ["from=2016-02-30", "from"],
      ["to=2016/02/01", "to"],
      ["from=2016-02-05&to=2016-02-01", "from"],
      ["pageSize=201", "pageSize"],
    ])("400 INVALID_REQUEST naming the parameter for %s", async (query, field) => {
      const reply = await get(`/api/v1/transactions?${query}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe("INVALID_REQUEST");
      expect(reply.body.error.details[0].field).toBe(field);
    });
  });

  describe("response shapes", () => {
    const SECURITY = [
      "assetClass",
      "country",
      "createdAt",
      "currency",
      "cusip",
      "exchange",
      "figi",
      "id",
      "isin",
      "lookThroughPortfolioId",
      "name",
      "sedol",
      "status",
      "ticker",
      "updatedAt",
    ];
    const JOB = [
      "completedAt",
      "counts",
      "dataType",
      "errors",
      "feedId",
      "fileName",
      "id",
      "leaseUntil",
      "source",
      "startedAt",
      "status",
    ];
    const PRICE = ["currency", "date", "isin", "price", "securityId", "source", "type", "updatedAt"];
    const TRANSACTION = [
      "createdAt",
      "currency",
      "externalId",
      "fees",
      "grossAmount",
      "id",
      "netAmount",
      "portfolioId",
      "price",
      "quantity",
      "securityId",
      "settlementDate",
      "source",
      "status",
      "statusHistory",
      "tradeDate",
      "type",
      "updatedAt",
    ];
    const keys = (o: object): string[] => Object.keys(o).sort();

    it("securities: get and list answer the documented fields only (no storage bookkeeping such as _rid, _etag, _ts)", async () => {
      const sec = securityRecord();
      await imported(token, "securities", { securities: [sec] });
      expect(keys((await get(`/api/v1/securities/sec_${sec.isin}`)).body.data)).toEqual(SECURITY);
      expect(keys((await get(`/api/v1/securities/${sec.isin}`)).body.data)).toEqual(SECURITY);
      const listed = (await get(`/api/v1/securities?isin=${sec.isin}`)).body.data;
      expect(listed).toHaveLength(1);
      expect(keys(listed[0])).toEqual(SECURITY);
    });

    it("jobs: get and list answer the documented fields only", async () => {
      const result = await imported(token, "securities", { securities: [securityRecord()] });
      const jobs = (await get(`/api/v1/jobs?pageSize=5`)).body.data as object[];
      for (const job of jobs) expect(keys(job)).toEqual(JOB);
      expect(keys((await get(`/api/v1/jobs/${result.jobId}`)).body.data)).toEqual(JOB);
    });

    it("prices and transactions lists answer the documented fields only", async () => {
      const sec = securityRecord();
      await createSecurities(token, [sec]);
      await imported(token, "prices", { prices: [price(sec.isin, "2016-03-01", 10)] });
      const prices = (await get(`/api/v1/securities/sec_${sec.isin}/prices`)).body.data;
      expect(keys(prices[0])).toEqual(PRICE);
      const portfolio = await createPortfolio(token);
      await imported(token, "transactions", {
        transactions: [
          {
            externalId: uid("shape"),
            portfolioId: portfolio.id,
            type: "deposit",
            tradeDate: "2016-03-01",
            netAmount: 1,
            currency: "EUR",
          },
        ],
      });
      const transactions = (await get(`/api/v1/transactions?portfolioId=${portfolio.id}`)).body.data;
      expect(keys(transactions[0])).toEqual(TRANSACTION);
    });
  });

  describe("jobs, exceptions and holdings", () => {
    it("jobs: get by id, listed under their data type, 404 when absent, 400 for bad filters", async () => {
      const result = await imported(token, "securities", { securities: [securityRecord()] });
      const job = await get(`/api/v1/jobs/${result.jobId}`);
      expect(job.status).toBe(200);
      expect(job.body.data).toMatchObject({
        id: result.jobId,
        dataType: "securities",
        status: "completed",
        source: "api",
      });
      const listed = await listAll(token, `/api/v1/jobs?dataType=securities&status=completed`);
      expect(listed.some((j) => j.id === result.jobId)).toBe(true);
      expect(listed.every((j) => j.dataType === "securities" && j.status === "completed")).toBe(true);
      // newest first
      const starts = listed.map((j) => j.startedAt as string);
      expect([...starts].sort().reverse()).toEqual(starts);
      expect(
        (await get(`/api/v1/jobs?dataType=prices`)).body.data.some((j: { id: string }) => j.id === result.jobId),
      ).toBe(false);
      expect((await get(`/api/v1/jobs/job_does_not_exist`)).status).toBe(404);
      for (const [query, field] of [
        ["dataType=holdings", "dataType"],
        ["status=done", "status"],
      ] as const) {
        const reply = await get(`/api/v1/jobs?${query}`);
        expect(reply.status).toBe(400);
        expect(reply.body.error.details[0].field).toBe(field);
      }
    });

    it("exceptions: 404 for an unknown id, 400 naming bad filters", async () => {
      expect((await get(`/api/v1/exceptions/exc_does_not_exist`)).status).toBe(404);
      for (const [query, field] of [
        ["type=FOO", "type"],
        ["status=closed", "status"],
        ["severity=fatal", "severity"],
      ] as const) {
        const reply = await get(`/api/v1/exceptions?${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.body.error.code).toBe("INVALID_REQUEST");
        expect(reply.body.error.details[0].field).toBe(field);
      }
    });

    it("holdings: 404 for a missing portfolio, 400 naming bad date or lookThrough, empty before any valuation", async () => {
      expect((await get(`/api/v1/portfolios/no-such-portfolio/holdings`)).status).toBe(404);
      const portfolio = await createPortfolio(token);
      for (const [query, field] of [
        ["date=2016-02-30", "date"],
        ["lookThrough=yes", "lookThrough"],
      ] as const) {
        const reply = await get(`/api/v1/portfolios/${portfolio.id}/holdings?${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.body.error.details[0].field).toBe(field);
      }
      const empty = await get(`/api/v1/portfolios/${portfolio.id}/holdings`);
      expect(empty.status).toBe(200);
      expect(empty.body.data).toMatchObject({
        portfolioId: portfolio.id,
        baseCurrency: "EUR",
        lookThrough: false,
        totalValue: 0,
        holdings: [],
      });
    });
  });
});
