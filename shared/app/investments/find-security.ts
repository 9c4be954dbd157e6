import { notFound } from "../../domain/errors";
import { looksLikeIsin } from "../../domain/isin";
import type { Security } from "../../domain/security";
import type { SecurityRepository } from "../../ports/investment-repositories";

/** A security named by the service's id or by its ISIN (as known at `asAt`, when given), or NOT_FOUND. */
export async function findSecurity(securities: SecurityRepository, idOrIsin: string, asAt?: string): Promise<Security> {
  const byId = await securities.get(idOrIsin, asAt);
  if (byId !== undefined) return byId;
  if (looksLikeIsin(idOrIsin)) {
    const byIsin =
      asAt === undefined
        ? await currentByIsin(securities, idOrIsin)
        : // The security that had the ISIN then (ISINs move between securities only by correction).
          (await securities.list({ isin: idOrIsin }, { page: 1, pageSize: 1 }, asAt)).items[0];
    if (byIsin !== undefined) return byIsin;
  }
  throw notFound(`Security '${idOrIsin}'`);
}

async function currentByIsin(securities: SecurityRepository, isin: string): Promise<Security | undefined> {
  const id = (await securities.idsForIsins([isin])).get(isin);
  return id === undefined ? undefined : securities.get(id);
}
