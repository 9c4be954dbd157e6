/**
 * The sample dataset of `npm run seed`: the portfolios the example provider files in examples/feeds/
 * name, their securities, prices and FX rates over time, positions and the transactions that lead to
 * them. Everything is derived from fixed numbers (a seeded random walk), so a second run sends the
 * very same records and, imports being upserts by natural key, changes nothing.
 */

export interface SampleSecurity {
  id?: string;
  isin: string;
  name: string;
  assetClass: "equity" | "bond" | "fund";
  currency: string;
  ticker?: string;
  country: string;
  /** The close (or NAV) on the first sample date; the walk starts there. */
  start: number;
  /** The NAV of a fund share class, a close otherwise. */
  priceType: "close" | "nav";
}

export const SECURITIES: readonly SampleSecurity[] = [
  {
    isin: "US0378331005",
    name: "Apple Inc.",
    assetClass: "equity",
    currency: "USD",
    ticker: "AAPL",
    country: "US",
    start: 226.2,
    priceType: "close",
  },
  {
    isin: "US5949181045",
    name: "Microsoft Corp.",
    assetClass: "equity",
    currency: "USD",
    ticker: "MSFT",
    country: "US",
    start: 420.7,
    priceType: "close",
  },
  {
    isin: "DE0007164600",
    name: "SAP SE",
    assetClass: "equity",
    currency: "EUR",
    ticker: "SAP",
    country: "DE",
    start: 205.3,
    priceType: "close",
  },
  {
    isin: "CH0038863350",
    name: "Nestlé S.A.",
    assetClass: "equity",
    currency: "CHF",
    ticker: "NESN",
    country: "CH",
    start: 86.4,
    priceType: "close",
  },
  {
    isin: "NL0010273215",
    name: "ASML Holding N.V.",
    assetClass: "equity",
    currency: "EUR",
    ticker: "ASML",
    country: "NL",
    start: 742.0,
    priceType: "close",
  },
  {
    isin: "GB0002374006",
    name: "Diageo plc",
    assetClass: "equity",
    currency: "GBP",
    ticker: "DGE",
    country: "GB",
    start: 25.9,
    priceType: "close",
  },
  {
    isin: "XS2346207892",
    name: "3.125 % Société Générale Green 21/31",
    assetClass: "bond",
    currency: "EUR",
    country: "FR",
    start: 97.8,
    priceType: "close",
  },
  {
    id: "GLB-EQ-A",
    isin: "LU1234567896",
    name: "Global Equity Fund A EUR Acc",
    assetClass: "fund",
    currency: "EUR",
    country: "LU",
    start: 136.9,
    priceType: "nav",
  },
  {
    id: "GLB-EQ-I",
    isin: "LU1234567979",
    name: "Global Equity Fund I USD Dist",
    assetClass: "fund",
    currency: "USD",
    country: "LU",
    start: 1031.5,
    priceType: "nav",
  },
  {
    id: "EUR-BD-R",
    isin: "LU9876543216",
    name: "Euro Bond Fund R CHF Hedged",
    assetClass: "fund",
    currency: "CHF",
    country: "LU",
    start: 97.2,
    priceType: "nav",
  },
];

export interface SamplePortfolio {
  code: string;
  name: string;
  clientId: string;
  baseCurrency: string;
  /** A composite's members, by code. */
  members?: string[];
  /** Trades (buys positive, sells negative), by security (its id, else its ISIN) and trade date; the positions follow from them. */
  trades: { security: string; date: string; quantity: number }[];
}

export const PORTFOLIOS: readonly SamplePortfolio[] = [
  {
    code: "PF-GROWTH-01",
    name: "Northwind Growth",
    clientId: "client-northwind",
    baseCurrency: "EUR",
    trades: [
      { security: "US0378331005", date: "2024-10-01", quantity: 400 },
      { security: "CH0038863350", date: "2024-10-01", quantity: 200 },
      { security: "US5949181045", date: "2024-10-01", quantity: 120 },
      { security: "NL0010273215", date: "2024-11-12", quantity: 60 },
      { security: "CH0038863350", date: "2024-12-10", quantity: -50 },
    ],
  },
  {
    code: "PF-INCOME-02",
    name: "Northwind Income",
    clientId: "client-northwind",
    baseCurrency: "EUR",
    trades: [
      { security: "DE0007164600", date: "2024-10-01", quantity: 200 },
      { security: "CH0038863350", date: "2024-10-01", quantity: 300 },
      { security: "GB0002374006", date: "2024-10-01", quantity: 1200 },
      { security: "GB0002374006", date: "2024-11-20", quantity: -400 },
    ],
  },
  {
    code: "PF-001",
    name: "Global Equity Mandate",
    clientId: "client-atlas-pension",
    baseCurrency: "USD",
    trades: [
      { security: "US0378331005", date: "2024-10-01", quantity: 1500 },
      { security: "CH0038863350", date: "2024-10-01", quantity: 200 },
      { security: "US5949181045", date: "2024-10-15", quantity: 800 },
      { security: "GLB-EQ-I", date: "2024-11-04", quantity: 250 },
    ],
  },
  {
    code: "PF-002",
    name: "European Equity Mandate",
    clientId: "client-atlas-pension",
    baseCurrency: "EUR",
    trades: [
      { security: "DE0007164600", date: "2024-10-01", quantity: 75 },
      { security: "NL0010273215", date: "2024-10-01", quantity: 40 },
      { security: "GLB-EQ-A", date: "2024-12-02", quantity: 500 },
    ],
  },
  {
    code: "DE-4711-01",
    name: "Depot Müller 01",
    clientId: "client-mueller",
    baseCurrency: "EUR",
    trades: [
      { security: "DE0007164600", date: "2024-10-01", quantity: 1250 },
      { security: "CH0038863350", date: "2024-10-01", quantity: 400 },
      { security: "EUR-BD-R", date: "2024-10-22", quantity: 300 },
    ],
  },
  {
    code: "DE-4711-02",
    name: "Depot Müller 02",
    clientId: "client-mueller",
    baseCurrency: "EUR",
    trades: [{ security: "US0378331005", date: "2024-10-01", quantity: 300 }],
  },
  {
    code: "MUELLER-ALL",
    name: "Müller family (all depots)",
    clientId: "client-mueller",
    baseCurrency: "EUR",
    members: ["DE-4711-01", "DE-4711-02"],
    trades: [],
  },
];

/** The FX rates: 1 EUR = rate in each of these, from the ECB's reference rates (walked like prices). */
export const FX_FROM_EUR: Readonly<Record<string, number>> = { USD: 1.1, CHF: 0.94, GBP: 0.84 };
