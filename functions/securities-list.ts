import { z } from "zod";
import { services } from "../shared/composition";
import { currencyCode } from "../shared/domain/currency";
import { isinSchema } from "../shared/domain/isin";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { assetClassSchema, securitySchema } from "../shared/domain/security";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";

export const securitiesList = endpoint({
  name: "securities-list",
  method: "GET",
  route: "api/v1/securities",
  summary: "List securities; filters combine",
  tag: "Securities",
  scope: "api.read",
  query: pageQuery.extend({
    isin: isinSchema.optional(),
    ticker: z.string().min(1).max(30).optional(),
    assetClass: assetClassSchema.optional(),
    currency: currencyCode.optional(),
    q: z.string().min(1).max(100).optional().meta({ description: "Name starts with (case-insensitive)" }),
    asAt: asAtQuery,
  }),
  responses: [
    {
      status: 200,
      description: "A page of securities, ordered by id",
      schema: z.object({ data: z.array(securitySchema), pagination: paginationSchema }),
      headers: asAtResponseHeader,
    },
  ],
  async handle({ query }) {
    const { page, pageSize, asAt: raw, ...filter } = query;
    const asAt = asAtOf(raw);
    const result = await services().investments.listSecurities().execute({ filter, page: { page, pageSize }, asAt });
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(page, pageSize, result.totalItems) },
      headers: asAtHeaders(asAt),
    };
  },
});

registerEndpoint(securitiesList);
