import { CosmosClient } from "@azure/cosmos";
import { randomInt } from "node:crypto";
import { expect, vi } from "vitest";
import { CosmosOutbox } from "../shared/adapters/cosmos/cosmos-outbox";
import type { EventEnvelope } from "../shared/domain/events";
import { isinCheckDigit } from "../shared/domain/isin";
import type { HoldingsView } from "../shared/app/investments/get-holdings";
import { call, cosmosEndpoint, uniqueCode, type Reply } from "./http";

/** The account key of the local Cosmos stand-in (local.settings.example.json). */
export const COSMOS_KEY = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/** A fresh, valid ISIN: country + 9 random letters/digits + the right check digit. */
export function newIsin(country = "XS"): string {
  let body = country;
  for (let i = 0; i < 9; i++) body += ALNUM[randomInt(ALNUM.length)];
  return `${body}${isinCheckDigit(body)}`;
}

/** The same ISIN with a wrong check digit. */
export function wrongCheckDigit(isin: string): string {
  const right = Number(isin.slice(-1));
  return `${isin.slice(0, -1)}${(right + 1) % 10}`;
}

export type DataType = "positions" | "transactions" | "prices" | "fx-rates" | "securities";

/** POST /api/v1/import/{dataType}. */
export function importData(
  token: string,
  dataType: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  return call("POST", `/api/v1/import/${dataType}`, { token, body, headers });
}

/** Imports and expects 200; returns `data` ({ jobId, dataType, received, created, updated, unchanged }). */
export async function imported(
  token: string,
  dataType: DataType,
  body: unknown,
): Promise<{
  jobId: string;
  dataType: string;
  received: number;
  created: number;
  updated: number;
  unchanged: number;
  removed: number;
}> {
  const reply = await importData(token, dataType, body);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
}

/** Expects a 422 VALIDATION_ERROR and returns its details. */
export function validationDetails(reply: Reply): { field: string; message: string }[] {
  expect(reply.status, reply.text).toBe(422);
  expect(reply.body.error.code).toBe("VALIDATION_ERROR");
  expect(Array.isArray(reply.body.error.details)).toBe(true);
  return reply.body.error.details;
}

export interface PortfolioInput {
  name?: string;
  code?: string;
  clientId?: string;
  baseCurrency?: string;
  type?: "standard" | "composite" | "fund";
  memberIds?: string[];
}

export interface PortfolioData {
  id: string;
  code: string;
  baseCurrency: string;
  type: string;
  status: string;
  totalValue: number | null;
  latestValuationDate: string | null;
  valuationStatus: "current" | "pending";
  [key: string]: unknown;
}

/** Creates a portfolio through the API (201 expected). */
export async function createPortfolio(token: string, input: PortfolioInput = {}): Promise<PortfolioData> {
  const reply = await call("POST", "/api/v1/portfolios", {
    token,
    body: {
      name: "Investment test",
      clientId: "investment-tests",
      baseCurrency: "EUR",
      code: uniqueCode("INV"),
      ...input,
    },
  });
  expect(reply.status, reply.text).toBe(201);
  return reply.body.data;
}

export async function getPortfolio(token: string, id: string): Promise<PortfolioData> {
  const reply = await call("GET", `/api/v1/portfolios/${id}`, { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
}

/**
 * Waits (polling, bounded) until each portfolio's valuation is `current`: imports answer before the
 * `valuations` queue has valued what they changed. Returns the portfolios as then read.
 */
export async function whenValued(token: string, ...ids: string[]): Promise<PortfolioData[]> {
  return vi.waitFor(
    async () => {
      const portfolios = await Promise.all(ids.map((id) => getPortfolio(token, id)));
      for (const [i, p] of portfolios.entries())
        expect(p.valuationStatus, `portfolio ${ids[i]} still has a valuation pending`).toBe("current");
      return portfolios;
    },
    { timeout: 30_000, interval: 100 },
  );
}

/** One portfolio, once its valuation is `current`. */
export async function valuedPortfolio(token: string, id: string): Promise<PortfolioData> {
  const [portfolio] = await whenValued(token, id);
  return portfolio as PortfolioData;
}

export interface SecurityRecord {
  id?: string;
  isin?: string;
  cusip?: string;
  sedol?: string;
  figi?: string;
  ticker?: string;
  name: string;
  assetClass: string;
  currency: string;
  country?: string;
  exchange?: string;
  lookThroughPortfolioId?: string;
  status?: string;
}

/** An equity security record with a fresh ISIN. */
export function securityRecord(overrides: Partial<SecurityRecord> = {}): SecurityRecord & { isin: string } {
  return {
    isin: newIsin(),
    name: `Test security ${uniqueCode("S")}`,
    assetClass: "equity",
    currency: "EUR",
    ...overrides,
  };
}

/** Imports securities and returns their ids (default `sec_<ISIN>`), in order. */
export async function createSecurities<T extends SecurityRecord[]>(
  token: string,
  records: [...T],
): Promise<{ [K in keyof T]: string }> {
  const result = await imported(token, "securities", { securities: records });
  expect(result.created).toBe(records.length);
  return records.map((r) => r.id ?? `sec_${r.isin ?? ""}`) as { [K in keyof T]: string };
}

export type { Holding } from "../shared/domain/valuation";
export type { HoldingsView } from "../shared/app/investments/get-holdings";

export async function holdingsOf(token: string, portfolioId: string, query = ""): Promise<HoldingsView> {
  const reply = await call("GET", `/api/v1/portfolios/${portfolioId}/holdings${query === "" ? "" : `?${query}`}`, {
    token,
  });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
}

/** Follows `pagination.nextCursor` from the first page to the end; returns every item. */
export async function listAll<T = any>(token: string, path: string, pageSize = 200): Promise<T[]> {
  const items: T[] = [];
  const sep = path.includes("?") ? "&" : "?";
  let reply = await call("GET", `${path}${sep}pageSize=${pageSize}`, { token });
  for (let pages = 0; ; pages++) {
    expect(reply.status, reply.text).toBe(200);
    items.push(...(reply.body.data as T[]));
    const next = reply.body.pagination?.nextCursor as string | null | undefined;
    if (next === null || next === undefined || pages > 1000) return items;
    reply = await call("GET", `${path}${sep}pageSize=${pageSize}&cursor=${encodeURIComponent(next)}`, { token });
  }
}

export interface DataQualityException {
  id: string;
  type: string;
  severity: string;
  message: string;
  entity: { type: string; id: string };
  jobId: string | null;
  status: string;
  createdAt: string;
  resolvedAt: string | null;
  resolvedBy: string | null;
  resolution: string | null;
}

/** Every exception of a type whose entity id is `entityId` (or starts with it, for price entities). */
export async function exceptionsFor(
  token: string,
  type: string,
  entityId: string,
  match: "exact" | "prefix" = "exact",
): Promise<DataQualityException[]> {
  const all = await listAll<DataQualityException>(token, `/api/v1/exceptions?type=${type}`);
  return all.filter((e) => (match === "exact" ? e.entity.id === entityId : e.entity.id.startsWith(entityId)));
}

let outboxInstance: CosmosOutbox | undefined;

/** The event outbox of the runtime under test, read through the product's own adapter. */
export function outbox(): CosmosOutbox {
  if (outboxInstance === undefined) {
    const client = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    outboxInstance = new CosmosOutbox(client.database("investment-data").container("events"));
  }
  return outboxInstance;
}

/** Outbox events of one name whose data matches `where`. */
export async function eventsWhere(
  event: string,
  where: (data: Record<string, unknown>) => boolean,
): Promise<EventEnvelope[]> {
  const events = await outbox().list({ event });
  return events.filter((e) => where(e.data));
}

/** A price record. */
export function price(
  isin: string,
  date: string,
  value: number,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return { isin, date, price: value, currency: "EUR", type: "close", source: "test-feed", ...overrides };
}

/** A fresh unique token for names and external ids. */
export const uid = (prefix = "X"): string => uniqueCode(prefix);
