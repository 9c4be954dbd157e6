import type { Security } from "../../domain/security";
import { findSecurity } from "./find-security";
import type { InvestmentDeps } from "./investment-deps";

/** One security, by the service's id or by its ISIN, as it is or as it was known at `asAt`. */
export class GetSecurity {
  constructor(private readonly deps: Pick<InvestmentDeps, "securities">) {}

  execute(idOrIsin: string, asAt?: string): Promise<Security> {
    return findSecurity(this.deps.securities, idOrIsin, asAt);
  }
}
