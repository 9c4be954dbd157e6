import type { Container, SqlParameter } from "@azure/cosmos";
import type { DateWindow } from "../../domain/export-data";
import type { FxRateRecord, FxRateReader } from "../../ports/export-data-sets";

interface FxDoc extends FxRateRecord {
  pair: string;
}

/** Stored FX rates page by page (continuation tokens) for exports: the `fxRates` container has no list endpoint. */
export class CosmosFxRatePages implements FxRateReader {
  constructor(
    private readonly container: Container,
    private readonly pageSize = 1000,
  ) {}

  async *pages(window: DateWindow | undefined): AsyncGenerator<FxRateRecord[]> {
    const where = ["c.docType = 'fx'"];
    const parameters: SqlParameter[] = [];
    if (window !== undefined) {
      where.push("c.date >= @from", "c.date <= @to");
      parameters.push({ name: "@from", value: window.from }, { name: "@to", value: window.to });
    }
    const iterator = this.container.items.query<FxDoc>(
      {
        query: `SELECT c.baseCurrency, c.quoteCurrency, c.date, c.rate, c.source FROM c WHERE ${where.join(" AND ")}`,
        parameters,
      },
      { maxItemCount: this.pageSize },
    );
    while (iterator.hasMoreResults()) {
      const { resources } = await iterator.fetchNext();
      if (resources.length > 0)
        yield resources.map((r) => ({
          baseCurrency: r.baseCurrency,
          quoteCurrency: r.quoteCurrency,
          date: r.date,
          rate: r.rate,
          source: r.source,
        }));
    }
  }
}
