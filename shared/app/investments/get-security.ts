import type { Security } from "../../domain/security";
import { findSecurity } from "./find-security";
import type { InvestmentDeps } from "./investment-deps";

/** One security, by the service's id or by its ISIN. */
export class GetSecurity {
  constructor(private readonly deps: Pick<InvestmentDeps, "securities">) {}

  execute(idOrIsin: string): Promise<Security> {
    return findSecurity(this.deps.securities, idOrIsin);
  }
}
