import type { Portfolio } from "../../../domain/portfolio";
import type { Security } from "../../../domain/security";
import type { SecurityRepository } from "../../../ports/investment-repositories";
import type { PortfolioRepository } from "../../../ports/portfolio-repository";
import type { Problems } from "./validate-payload";

export interface PortfolioRef {
  portfolioId?: string | undefined;
  portfolioCode?: string | undefined;
}

export interface SecurityRef {
  securityId?: string | undefined;
  isin?: string | undefined;
}

/** Loads, in bulk, the portfolios and securities that import records name, by id, code or ISIN. */
export class ReferenceResolver {
  private portfoliosById = new Map<string, Portfolio>();
  private portfolioIdByCode = new Map<string, string>();
  private securitiesById = new Map<string, Security>();
  private securityIdByIsin = new Map<string, string>();

  constructor(
    private readonly portfolios: PortfolioRepository,
    private readonly securities: SecurityRepository,
  ) {}

  async loadPortfolios(refs: readonly (PortfolioRef | undefined)[]): Promise<void> {
    const codes = refs.flatMap((r) =>
      r?.portfolioId === undefined && r?.portfolioCode !== undefined ? [r.portfolioCode] : [],
    );
    this.portfolioIdByCode = await this.portfolios.idsForCodes(codes);
    const ids = refs.flatMap((r) => (r?.portfolioId !== undefined ? [r.portfolioId] : []));
    this.portfoliosById = await this.portfolios.getMany([...ids, ...this.portfolioIdByCode.values()]);
  }

  async loadSecurities(refs: readonly (SecurityRef | undefined)[]): Promise<void> {
    const isins = refs.flatMap((r) => (r?.securityId === undefined && r?.isin !== undefined ? [r.isin] : []));
    this.securityIdByIsin = await this.securities.idsForIsins(isins);
    const ids = refs.flatMap((r) => (r?.securityId !== undefined ? [r.securityId] : []));
    this.securitiesById = await this.securities.getMany([...ids, ...this.securityIdByIsin.values()]);
  }

  /** Loads ISIN → security id only, for records that need no more than the id (prices). */
  async loadIsins(isins: readonly (string | undefined)[]): Promise<void> {
    this.securityIdByIsin = await this.securities.idsForIsins(isins.filter((i): i is string => i !== undefined));
  }

  /** The id of the security an ISIN names (after loadIsins), or undefined with a problem added. */
  securityIdForIsin(isin: string, field: string, problems: Problems): string | undefined {
    const id = this.securityIdByIsin.get(isin);
    if (id === undefined) problems.add(`${field}.isin`, `security '${isin}' does not exist; import it first`);
    return id;
  }

  /** The writable portfolio a record names, or undefined with a problem added. */
  portfolio(
    ref: PortfolioRef,
    field: string,
    problems: Problems,
    options: { allowComposite: boolean },
  ): Portfolio | undefined {
    const id = ref.portfolioId ?? this.portfolioIdByCode.get((ref.portfolioCode ?? "").toUpperCase());
    const portfolio = id === undefined ? undefined : this.portfoliosById.get(id);
    const name = ref.portfolioId !== undefined ? "portfolioId" : "portfolioCode";
    if (portfolio === undefined) {
      problems.add(`${field}.${name}`, `portfolio '${ref.portfolioId ?? ref.portfolioCode ?? ""}' does not exist`);
      return undefined;
    }
    if (portfolio.status === "archived") {
      problems.add(`${field}.${name}`, `portfolio '${portfolio.code}' is archived and read-only`);
      return undefined;
    }
    if (!options.allowComposite && portfolio.type === "composite") {
      problems.add(`${field}.${name}`, `portfolio '${portfolio.code}' is a composite; its data comes from its members`);
      return undefined;
    }
    return portfolio;
  }

  /** The security a record names, or undefined with a problem added. */
  security(ref: SecurityRef, field: string, problems: Problems): Security | undefined {
    const id = ref.securityId ?? (ref.isin === undefined ? undefined : this.securityIdByIsin.get(ref.isin));
    const security = id === undefined ? undefined : this.securitiesById.get(id);
    if (security === undefined) {
      const name = ref.securityId !== undefined ? "securityId" : "isin";
      problems.add(
        `${field}.${name}`,
        `security '${ref.securityId ?? ref.isin ?? ""}' does not exist; import it first`,
      );
    }
    return security;
  }
}
