import { CosmosDataQualityExceptionRepository } from "../adapters/cosmos/cosmos-data-quality-exception-repository";
import { CosmosFxRateRepository } from "../adapters/cosmos/cosmos-fx-rate-repository";
import { CosmosJobRepository } from "../adapters/cosmos/cosmos-job-repository";
import { CosmosPortfolioRepository } from "../adapters/cosmos/cosmos-portfolio-repository";
import { CosmosPositionRepository } from "../adapters/cosmos/cosmos-position-repository";
import { CosmosPriceRepository } from "../adapters/cosmos/cosmos-price-repository";
import { CosmosSecurityRepository } from "../adapters/cosmos/cosmos-security-repository";
import { CosmosTransactionRepository } from "../adapters/cosmos/cosmos-transaction-repository";
import { CreatePortfolio } from "../app/investments/create-portfolio";
import { DataQualityExceptions } from "../app/investments/data-quality-exceptions";
import { GetDataQualityException } from "../app/investments/get-data-quality-exception";
import { GetHoldings } from "../app/investments/get-holdings";
import { GetJob } from "../app/investments/get-job";
import { GetPortfolio } from "../app/investments/get-portfolio";
import { GetSecurity } from "../app/investments/get-security";
import { GetTransaction } from "../app/investments/get-transaction";
import { ImportRecords } from "../app/investments/import/import-records";
import type { InvestmentDeps } from "../app/investments/investment-deps";
import { ListDataQualityExceptions } from "../app/investments/list-data-quality-exceptions";
import { ListFxRates } from "../app/investments/list-fx-rates";
import { ListJobs } from "../app/investments/list-jobs";
import { ListPortfolios } from "../app/investments/list-portfolios";
import { ListSecurities } from "../app/investments/list-securities";
import { ListSecurityPrices } from "../app/investments/list-security-prices";
import { ListTransactions } from "../app/investments/list-transactions";
import { NewCompositeValuation } from "../app/investments/new-composite-valuation";
import { ReapAbandonedJobs } from "../app/investments/reap-abandoned-jobs";
import { RecordHistories } from "../app/investments/record-histories";
import { ResolveDataQualityException } from "../app/investments/resolve-data-quality-exception";
import { SweepStaleValuations } from "../app/investments/sweep-stale-valuations";
import { UpdatePortfolio } from "../app/investments/update-portfolio";
import { ValuationService } from "../app/investments/valuation-service";
import { ValueStalePortfolios } from "../app/investments/value-stale-portfolios";
import type { CoreServices } from "./core";
import { lazy } from "./lazy";

/** The investment data: portfolios, securities, prices, FX rates, positions, transactions, imports, valuation, jobs, exceptions. */
export class InvestmentServices {
  constructor(private readonly core: CoreServices) {}

  /** The closed versions of every investment record (time travel). */
  private readonly versions = lazy(() => this.core.cosmos().container("versions"));
  readonly portfolioRepository = lazy(
    () => new CosmosPortfolioRepository(this.core.cosmos().container("portfolios"), this.versions(), this.core.clock),
  );
  readonly securityRepository = lazy(
    () => new CosmosSecurityRepository(this.core.cosmos().container("securities"), this.versions(), this.core.clock),
  );
  readonly priceRepository = lazy(
    () => new CosmosPriceRepository(this.core.cosmos().container("prices"), this.versions(), this.core.clock),
  );
  readonly fxRateRepository = lazy(
    () => new CosmosFxRateRepository(this.core.cosmos().container("fxRates"), this.versions(), this.core.clock),
  );
  readonly positionRepository = lazy(
    () => new CosmosPositionRepository(this.core.cosmos().container("positions"), this.versions(), this.core.clock),
  );
  readonly transactionRepository = lazy(
    () =>
      new CosmosTransactionRepository(this.core.cosmos().container("transactions"), this.versions(), this.core.clock),
  );
  readonly jobRepository = lazy(() => new CosmosJobRepository(this.core.cosmos().container("jobs")));
  readonly dataQualityExceptionRepository = lazy(
    () => new CosmosDataQualityExceptionRepository(this.core.cosmos().container("exceptions")),
  );
  /** The stores and the clock, as the use cases take them. */
  readonly stores = lazy<InvestmentDeps>(() => ({
    portfolios: this.portfolioRepository(),
    securities: this.securityRepository(),
    prices: this.priceRepository(),
    fxRates: this.fxRateRepository(),
    positions: this.positionRepository(),
    transactions: this.transactionRepository(),
    jobs: this.jobRepository(),
    exceptions: this.dataQualityExceptionRepository(),
    clock: this.core.clock,
  }));

  readonly dataQualityExceptions = lazy(
    () => new DataQualityExceptions(this.dataQualityExceptionRepository(), this.core.outbox(), this.core.clock),
  );
  readonly valuation = lazy(
    () =>
      new ValuationService(
        this.portfolioRepository(),
        this.positionRepository(),
        this.securityRepository(),
        this.priceRepository(),
        this.fxRateRepository(),
        this.core.outbox(),
        this.dataQualityExceptions(),
        this.core.clock,
        {
          pricePreference: this.core.config.VALUATION_PRICE_PREFERENCE,
          staleAfterDays: this.core.config.STALE_PRICE_DAYS,
          fxPivots: this.core.config.FX_PIVOT_CURRENCIES,
        },
      ),
  );
  readonly newCompositeValuation = lazy(
    () => new NewCompositeValuation({ ...this.stores(), valuation: this.valuation(), bus: this.core.messageBus() }),
  );

  readonly listPortfolios = lazy(() => new ListPortfolios(this.stores()));
  readonly getPortfolio = lazy(() => new GetPortfolio(this.stores()));
  /** The new composite's valuation is built on first use: creating any other portfolio needs neither valuation nor queue. */
  readonly createPortfolio = lazy(
    () =>
      new CreatePortfolio({
        ...this.stores(),
        valuations: { valueNewComposite: (composite) => this.newCompositeValuation().valueNewComposite(composite) },
      }),
  );
  readonly updatePortfolio = lazy(() => new UpdatePortfolio(this.stores()));
  readonly getHoldings = lazy(() => new GetHoldings(this.stores(), this.core.config.FX_PIVOT_CURRENCIES));
  readonly listSecurities = lazy(() => new ListSecurities(this.stores()));
  readonly getSecurity = lazy(() => new GetSecurity(this.stores()));
  readonly listSecurityPrices = lazy(() => new ListSecurityPrices(this.stores()));
  readonly listTransactions = lazy(() => new ListTransactions(this.stores()));
  readonly getTransaction = lazy(() => new GetTransaction(this.stores()));
  readonly listFxRates = lazy(() => new ListFxRates(this.stores()));
  readonly recordHistories = lazy(() => new RecordHistories(this.stores()));
  readonly listJobs = lazy(() => new ListJobs(this.stores()));
  readonly getJob = lazy(() => new GetJob(this.stores()));
  readonly listDataQualityExceptions = lazy(() => new ListDataQualityExceptions(this.stores()));
  readonly getDataQualityException = lazy(() => new GetDataQualityException(this.stores()));
  readonly resolveDataQualityException = lazy(
    () => new ResolveDataQualityException({ dataQuality: this.dataQualityExceptions() }),
  );

  readonly importRecords = lazy(
    () =>
      new ImportRecords({
        ...this.stores(),
        outbox: this.core.outbox(),
        dataQuality: this.dataQualityExceptions(),
        messageBus: this.core.messageBus(),
        valuationDelaySeconds: this.core.config.VALUATION_DELAY_SECONDS,
        priceJumpThreshold: this.core.config.PRICE_JUMP_THRESHOLD,
      }),
  );
  readonly valueStalePortfolios = lazy(
    () => new ValueStalePortfolios({ ...this.stores(), valuation: this.valuation(), bus: this.core.messageBus() }),
  );
  readonly sweepStaleValuations = lazy(
    () =>
      new SweepStaleValuations({
        ...this.stores(),
        bus: this.core.messageBus(),
        ageSeconds: this.core.config.VALUATION_SWEEP_AGE_SECONDS,
      }),
  );
  readonly reapAbandonedJobs = lazy(() => new ReapAbandonedJobs({ ...this.stores(), outbox: this.core.outbox() }));
}
