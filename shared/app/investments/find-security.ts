import { notFound } from "../../domain/errors";
import { looksLikeIsin } from "../../domain/isin";
import type { Security } from "../../domain/security";
import type { SecurityRepository } from "../../ports/investment-repositories";

/** A security named by the service's id or by its ISIN, or NOT_FOUND. */
export async function findSecurity(securities: SecurityRepository, idOrIsin: string): Promise<Security> {
  const byId = await securities.get(idOrIsin);
  if (byId !== undefined) return byId;
  if (looksLikeIsin(idOrIsin)) {
    const id = (await securities.idsForIsins([idOrIsin])).get(idOrIsin);
    const byIsin = id === undefined ? undefined : await securities.get(id);
    if (byIsin !== undefined) return byIsin;
  }
  throw notFound(`Security '${idOrIsin}'`);
}
