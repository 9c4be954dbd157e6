import type { DateWindow } from "../domain/export-data";

/** An FX rate as exports write it (API.md's FX rate: 1 base = `rate` quote). */
export interface FxRateRecord {
  baseCurrency: string;
  quoteCurrency: string;
  date: string;
  rate: number;
  source: string;
}

/** FX rates in pages, optionally within a window of dates: the API has no list of them to reuse. */
export interface FxRateReader {
  pages(window: DateWindow | undefined): AsyncIterable<FxRateRecord[]>;
}
