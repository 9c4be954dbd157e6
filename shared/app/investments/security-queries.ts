import { notFound } from "../../domain/errors";
import { looksLikeIsin } from "../../domain/isin";
import type { CursorPage, PageRequest } from "../../domain/page-request";
import { paginationOf, type Pagination } from "../../domain/pagination";
import type { Price } from "../../domain/price";
import type { Security } from "../../domain/security";
import type { PriceFilter, PriceRepository, SecurityFilter, SecurityRepository } from "../../ports/investment-repositories";

/** Reads of securities and their prices; a security is named by the service's id or by its ISIN. */
export class SecurityQueries {
  constructor(
    private readonly securities: SecurityRepository,
    private readonly priceRepository: PriceRepository,
  ) {}

  async list(filter: SecurityFilter, page: number, pageSize: number): Promise<{ items: Security[]; pagination: Pagination }> {
    const result = await this.securities.list(filter, { page, pageSize });
    return { items: result.items, pagination: paginationOf(page, pageSize, result.totalItems) };
  }

  /** A page of the same list by number or by cursor: every security can be walked, however many. */
  listPage(filter: SecurityFilter, request: PageRequest): Promise<CursorPage<Security>> {
    return this.securities.list(filter, request);
  }

  async get(idOrIsin: string): Promise<Security> {
    const byId = await this.securities.get(idOrIsin);
    if (byId !== undefined) return byId;
    if (looksLikeIsin(idOrIsin)) {
      const id = (await this.securities.idsForIsins([idOrIsin])).get(idOrIsin);
      const byIsin = id === undefined ? undefined : await this.securities.get(id);
      if (byIsin !== undefined) return byIsin;
    }
    throw notFound(`Security '${idOrIsin}'`);
  }

  async prices(idOrIsin: string, filter: PriceFilter, request: PageRequest): Promise<CursorPage<Price>> {
    const security = await this.get(idOrIsin);
    return this.priceRepository.list(security.id, filter, request);
  }
}
