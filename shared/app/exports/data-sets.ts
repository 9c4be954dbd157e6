/**
 * The rows of each exported data type, read with the same use cases and repositories as the API's
 * GET endpoints (so a file and a GET agree record for record) and streamed page by page: a data set
 * never holds more than one page of its records, whatever its size.
 *
 * Filters: `portfolioIds` and `clientId` select the portfolios whose portfolios, holdings, positions
 * and transactions are exported (the other data types do not belong to a portfolio and ignore them);
 * `status` is the record's own status — a portfolio's for portfolios, holdings and positions, a
 * transaction's, a security's or an exception's — and is refused for prices and FX rates, which
 * have none.
 */
import { dataQualityStatusSchema } from "../../domain/data-quality-exception";
import { AppError } from "../../domain/errors";
import { portfolioStatusSchema, type PortfolioView } from "../../domain/portfolio";
import { securitySchema } from "../../domain/security";
import { transactionStatusSchema } from "../../domain/transaction";
import type {
  DataQualityExceptionFilter,
  PositionRepository,
  PriceRepository,
  SecurityFilter,
  TransactionFilter,
} from "../../ports/investment-repositories";
import type { PortfolioFilter } from "../../ports/portfolio-repository";
import type { GetHoldings } from "../investments/get-holdings";
import type { GetPortfolio } from "../investments/get-portfolio";
import type { ListDataQualityExceptions } from "../investments/list-data-quality-exceptions";
import type { ListPortfolios } from "../investments/list-portfolios";
import type { ListSecurities } from "../investments/list-securities";
import type { ListTransactions } from "../investments/list-transactions";
import type { DataSet, DataSetRequest, ExportDataSets } from "../../ports/exports";
import type { ExportDataType, ExportFilters } from "../../domain/export-data";
import { dataSetColumns } from "./data-set-columns";
import { cursorPages, filterPages, flat } from "./data-set-paging";
import type { FxRateReader } from "../../ports/export-data-sets";

type Row = Record<string, unknown>;

export interface ExportDataSetSources {
  getPortfolio: GetPortfolio;
  listPortfolios: ListPortfolios;
  getHoldings: GetHoldings;
  positions: PositionRepository;
  listTransactions: ListTransactions;
  listSecurities: ListSecurities;
  prices: PriceRepository;
  fxRates: FxRateReader;
  listExceptions: ListDataQualityExceptions;
}

/** The statuses `filters.status` may name for each data type (undefined: the data type has none). */
export const exportStatuses: Record<ExportDataType, readonly string[] | undefined> = {
  portfolios: portfolioStatusSchema.options,
  holdings: portfolioStatusSchema.options,
  positions: portfolioStatusSchema.options,
  transactions: transactionStatusSchema.options,
  securities: securitySchema.shape.status.options,
  exceptions: dataQualityStatusSchema.options,
  prices: undefined,
  "fx-rates": undefined,
};

function checkStatus(dataType: ExportDataType, status: string | undefined): void {
  if (status === undefined) return;
  const allowed = exportStatuses[dataType];
  if (allowed === undefined) {
    throw new AppError("VALIDATION_ERROR", `${dataType} have no status to filter on`, {
      details: [{ field: "filters.status", message: `not applicable to ${dataType}` }],
    });
  }
  if (!allowed.includes(status)) {
    throw new AppError("VALIDATION_ERROR", `'${status}' is not a status of ${dataType}`, {
      details: [{ field: "filters.status", message: `must be one of ${allowed.join(", ")}` }],
    });
  }
}

/** Drops undefined filter fields (the repositories treat a present key as a condition). */
const defined = <T extends object>(filter: T): T =>
  Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as T;

/** The export data sets over the API's read use cases. */
export class ExportDataSetsOverReads implements ExportDataSets {
  constructor(private readonly sources: ExportDataSetSources) {}

  open(request: DataSetRequest): DataSet {
    const { columns, columnTypes } = dataSetColumns[request.dataType];
    return { columns, columnTypes, records: this.records(request) };
  }

  private async *records(request: DataSetRequest): AsyncGenerator<Row> {
    const { dataType, filters, window } = request;
    checkStatus(dataType, filters.status);
    switch (dataType) {
      case "portfolios":
        yield* this.portfolios(filters, filters.status);
        return;
      case "holdings":
        yield* this.holdings(filters);
        return;
      case "positions":
        yield* this.positions(filters);
        return;
      case "transactions":
        yield* this.transactions(filters, window);
        return;
      case "prices":
        yield* this.prices(window);
        return;
      case "fx-rates":
        yield* flat(this.sources.fxRates.pages(window)) as AsyncGenerator<Row>;
        return;
      case "securities":
        yield* this.securities(filters.status);
        return;
      case "exceptions":
        yield* this.exceptions(filters.status);
        return;
    }
  }

  /** The portfolios the filters select, in the API's order (by code); `status` the portfolio's. */
  private async *portfolios(filters: ExportFilters, status: string | undefined): AsyncGenerator<PortfolioView> {
    const { getPortfolio, listPortfolios } = this.sources;
    if (filters.portfolioIds !== undefined) {
      for (const id of new Set(filters.portfolioIds)) {
        const portfolio = await getPortfolio.execute(id).catch((error: unknown) => {
          if (error instanceof AppError && error.code === "NOT_FOUND") return undefined;
          throw error;
        });
        if (portfolio === undefined) continue;
        if (filters.clientId !== undefined && portfolio.clientId !== filters.clientId) continue;
        if (status !== undefined && portfolio.status !== status) continue;
        yield portfolio;
      }
      return;
    }
    const filter = defined({ clientId: filters.clientId, status } as PortfolioFilter);
    yield* flat(cursorPages((page) => listPortfolios.execute({ filter, page })));
  }

  /** Each selected portfolio's holdings at its latest valuation, one row per holding. */
  private async *holdings(filters: ExportFilters): AsyncGenerator<Row> {
    for await (const portfolio of this.portfolios(filters, filters.status)) {
      if (portfolio.latestValuationDate === null) continue;
      const view = await this.sources.getHoldings.execute({ portfolioId: portfolio.id, lookThrough: false });
      for (const holding of view.holdings) {
        yield {
          portfolioId: view.portfolioId,
          portfolioCode: portfolio.code,
          date: view.date,
          baseCurrency: view.baseCurrency,
          ...holding,
        };
      }
    }
  }

  /** Each selected portfolio's positions as of its latest valuation. */
  private async *positions(filters: ExportFilters): AsyncGenerator<Row> {
    for await (const portfolio of this.portfolios(filters, filters.status)) {
      if (portfolio.latestValuationDate === null) continue;
      const snapshot = await this.sources.positions.latestSnapshot(portfolio.id, portfolio.latestValuationDate);
      if (snapshot === undefined) continue;
      for (const p of snapshot.positions) {
        yield {
          portfolioId: portfolio.id,
          portfolioCode: portfolio.code,
          date: snapshot.date,
          securityId: p.securityId,
          quantity: p.quantity,
          costBasis: p.costBasis,
          currency: p.currency,
        };
      }
    }
  }

  /**
   * Transactions portfolio by portfolio (each one partition), by trade date within each: one
   * partition per query reads as fast as Cosmos DB can, where a cross-partition sort would not.
   */
  private async *transactions(filters: ExportFilters, window: DataSetRequest["window"]): AsyncGenerator<Row> {
    const { listTransactions } = this.sources;
    for await (const portfolio of this.portfolios(
      {
        ...(filters.portfolioIds ? { portfolioIds: filters.portfolioIds } : {}),
        ...(filters.clientId ? { clientId: filters.clientId } : {}),
      },
      undefined,
    )) {
      const filter = defined({
        portfolioId: portfolio.id,
        status: filters.status,
        from: window?.from,
        to: window?.to,
      } as TransactionFilter);
      yield* flat(cursorPages((page) => listTransactions.execute({ filter, page })));
    }
  }

  private async *prices(window: DataSetRequest["window"]): AsyncGenerator<Row> {
    const filter = window === undefined ? {} : { from: window.from, to: window.to };
    for await (const security of this.securities(undefined)) {
      yield* flat(cursorPages((request) => this.sources.prices.list(security.id, filter, request)));
    }
  }

  private exceptions(status: string | undefined): AsyncGenerator<Row> {
    const filter = defined({ status } as DataQualityExceptionFilter);
    return flat(cursorPages((page) => this.sources.listExceptions.execute({ filter, page })));
  }

  private securities(status: string | undefined): AsyncGenerator<Row & { id: string }> {
    const { listSecurities } = this.sources;
    const filter: SecurityFilter = {};
    return flat(
      filterPages(
        cursorPages((page) => listSecurities.execute({ filter, page })),
        (s) => status === undefined || s.status === status,
      ),
    );
  }
}
