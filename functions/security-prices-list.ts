import { z } from "zod";
import { services } from "../shared/composition";
import { isoDate } from "../shared/domain/dates";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { priceSchema, priceTypeSchema } from "../shared/domain/price";
import { securityIdParams } from "../shared/domain/security";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";
import { checkRange } from "../shared/http/date-range";

export const securityPricesList = endpoint({
  name: "security-prices-list",
  method: "GET",
  route: "api/v1/securities/{securityId}/prices",
  summary: "Prices of a security, sorted by date; from and to are inclusive",
  tag: "Securities",
  scope: "api.read",
  params: securityIdParams,
  query: cursorQuery.extend({
    from: isoDate.optional(),
    to: isoDate.optional(),
    type: priceTypeSchema.optional(),
    asAt: asAtQuery,
  }),
  responses: [
    {
      status: 200,
      description: "A page of prices",
      schema: z.object({ data: z.array(priceSchema), pagination: cursorPaginationSchema }),
      headers: asAtResponseHeader,
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const { from, to, type, asAt: raw, ...paging } = query;
    checkRange(from, to);
    const asAt = asAtOf(raw);
    const request = pageRequestOf(paging);
    const filter = { ...(from ? { from } : {}), ...(to ? { to } : {}), ...(type ? { type } : {}) };
    const page = await services()
      .investments.listSecurityPrices()
      .execute({ security: params.securityId, filter, page: request, asAt });
    return {
      status: 200,
      body: { data: page.items, pagination: cursorPaginationOf(request, page) },
      headers: asAtHeaders(asAt),
    };
  },
});

registerEndpoint(securityPricesList);
