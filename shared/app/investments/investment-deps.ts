import type { Clock } from "../../ports/clock";
import type {
  DataQualityExceptionRepository,
  FxRateRepository,
  JobRepository,
  PositionRepository,
  PriceRepository,
  SecurityRepository,
  TransactionRepository,
} from "../../ports/investment-repositories";
import type { PortfolioRepository } from "../../ports/portfolio-repository";

/** The stores of the investment data and the clock: each investment use case takes the part it needs. */
export interface InvestmentDeps {
  portfolios: PortfolioRepository;
  securities: SecurityRepository;
  prices: PriceRepository;
  fxRates: FxRateRepository;
  positions: PositionRepository;
  transactions: TransactionRepository;
  jobs: JobRepository;
  exceptions: DataQualityExceptionRepository;
  clock: Clock;
}
