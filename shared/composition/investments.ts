import { CosmosDataQualityExceptionRepository } from "../adapters/cosmos/cosmos-data-quality-exception-repository";
import { CosmosFxRateRepository } from "../adapters/cosmos/cosmos-fx-rate-repository";
import { CosmosJobRepository } from "../adapters/cosmos/cosmos-job-repository";
import { CosmosPortfolioRepository } from "../adapters/cosmos/cosmos-portfolio-repository";
import { CosmosPositionRepository } from "../adapters/cosmos/cosmos-position-repository";
import { CosmosPriceRepository } from "../adapters/cosmos/cosmos-price-repository";
import { CosmosSecurityRepository } from "../adapters/cosmos/cosmos-security-repository";
import { CosmosTransactionRepository } from "../adapters/cosmos/cosmos-transaction-repository";
import { DataQualityExceptions } from "../app/investments/data-quality-exceptions";
import { Holdings } from "../app/investments/get-holdings";
import { ImportService } from "../app/investments/import/import-records";
import { JobQueries } from "../app/investments/job-queries";
import { Portfolios } from "../app/investments/portfolios";
import { ReapAbandonedJobs } from "../app/investments/reap-abandoned-jobs";
import { SecurityQueries } from "../app/investments/security-queries";
import { TransactionQueries } from "../app/investments/list-transactions";
import { SweepStaleValuations } from "../app/investments/sweep-stale-valuations";
import { ValuationService } from "../app/investments/valuation-service";
import { ValueStalePortfolios } from "../app/investments/value-stale-portfolios";
import type { CoreServices } from "./core";
import { lazy } from "./lazy";

/** The investment data: portfolios, securities, prices, FX rates, positions, transactions, imports, valuation, jobs, exceptions. */
export class InvestmentServices {
  constructor(private readonly core: CoreServices) {}

  readonly portfolioRepository = lazy(() => new CosmosPortfolioRepository(this.core.cosmos().container("portfolios")));
  readonly securityRepository = lazy(() => new CosmosSecurityRepository(this.core.cosmos().container("securities")));
  readonly priceRepository = lazy(() => new CosmosPriceRepository(this.core.cosmos().container("prices")));
  readonly fxRateRepository = lazy(() => new CosmosFxRateRepository(this.core.cosmos().container("fxRates")));
  readonly positionRepository = lazy(() => new CosmosPositionRepository(this.core.cosmos().container("positions")));
  readonly transactionRepository = lazy(() => new CosmosTransactionRepository(this.core.cosmos().container("transactions")));
  readonly jobRepository = lazy(() => new CosmosJobRepository(this.core.cosmos().container("jobs")));
  readonly dataQualityExceptionRepository = lazy(() => new CosmosDataQualityExceptionRepository(this.core.cosmos().container("exceptions")));

  readonly portfolios = lazy(
    () =>
      new Portfolios(this.portfolioRepository(), this.core.clock, {
        valueNewComposite: (composite) => this.valueStalePortfolios().markNewComposite(composite),
      }),
  );
  readonly dataQualityExceptions = lazy(() => new DataQualityExceptions(this.dataQualityExceptionRepository(), this.core.outbox(), this.core.clock));
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
        { pricePreference: this.core.config.VALUATION_PRICE_PREFERENCE, staleAfterDays: this.core.config.STALE_PRICE_DAYS },
      ),
  );
  readonly imports = lazy(
    () =>
      new ImportService({
        portfolios: this.portfolioRepository(),
        securities: this.securityRepository(),
        prices: this.priceRepository(),
        fxRates: this.fxRateRepository(),
        positions: this.positionRepository(),
        transactions: this.transactionRepository(),
        jobs: this.jobRepository(),
        outbox: this.core.outbox(),
        dataQuality: this.dataQualityExceptions(),
        messageBus: this.core.messageBus(),
        valuationDelaySeconds: this.core.config.VALUATION_DELAY_SECONDS,
        clock: this.core.clock,
        priceJumpThreshold: this.core.config.PRICE_JUMP_THRESHOLD,
      }),
  );
  readonly valueStalePortfolios = lazy(
    () =>
      new ValueStalePortfolios(this.portfolioRepository(), this.positionRepository(), this.jobRepository(), this.valuation(), this.core.messageBus(), this.core.clock),
  );
  readonly sweepStaleValuations = lazy(
    () => new SweepStaleValuations(this.positionRepository(), this.portfolioRepository(), this.core.messageBus(), this.core.clock, this.core.config.VALUATION_SWEEP_AGE_SECONDS),
  );
  readonly reapJobs = lazy(() => new ReapAbandonedJobs(this.jobRepository(), this.core.outbox(), this.core.clock));
  readonly securityQueries = lazy(() => new SecurityQueries(this.securityRepository(), this.priceRepository()));
  readonly transactionQueries = lazy(() => new TransactionQueries(this.transactionRepository()));
  readonly jobQueries = lazy(() => new JobQueries(this.jobRepository()));
  readonly holdings = lazy(() => new Holdings(this.portfolioRepository(), this.positionRepository(), this.securityRepository(), this.fxRateRepository()));
}
