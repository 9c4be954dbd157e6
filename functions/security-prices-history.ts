import { z } from "zod";
import { services } from "../shared/composition";
import { isoDate } from "../shared/domain/dates";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { priceSchema, priceTypeSchema } from "../shared/domain/price";
import { securityIdParams } from "../shared/domain/security";
import { historyEntrySchema } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const securityPricesHistory = endpoint({
  name: "security-prices-history",
  method: "GET",
  route: "api/v1/securities/{securityId}/prices/history",
  summary:
    "The versions of one price (a security's price of one date and type; every source unless source is given), newest first",
  tag: "Securities",
  scope: "api.read",
  params: securityIdParams,
  query: cursorQuery.extend({
    date: isoDate,
    type: priceTypeSchema,
    source: z.string().min(1).max(100).optional().meta({ description: "Only this source's price" }),
  }),
  responses: [
    {
      status: 200,
      description: "A page of versions",
      schema: z.object({
        data: z.array(historyEntrySchema(priceSchema, "PriceVersion")),
        pagination: cursorPaginationSchema,
      }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const { date, type, source, ...paging } = query;
    const request = pageRequestOf(paging);
    const page = await services()
      .investments.recordHistories()
      .price(params.securityId, { date, type, ...(source !== undefined ? { source } : {}) }, request);
    return { status: 200, body: { data: page.items, pagination: cursorPaginationOf(request, page) } };
  },
});

registerEndpoint(securityPricesHistory);
