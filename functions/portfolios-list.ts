import { z } from "zod";
import { services } from "../shared/composition";
import { currencyCode } from "../shared/domain/currency";
import { pageQuery, paginationOf, paginationSchema } from "../shared/domain/pagination";
import { portfolioSchema, portfolioStatusSchema } from "../shared/domain/portfolio";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";

export const portfoliosList = endpoint({
  name: "portfolios-list",
  method: "GET",
  route: "api/v1/portfolios",
  summary: "List portfolios; filters combine",
  tag: "Portfolios",
  scope: "api.read",
  query: pageQuery.extend({
    status: portfolioStatusSchema.optional(),
    clientId: z.string().min(1).max(100).optional(),
    currency: currencyCode.optional(),
    asAt: asAtQuery,
  }),
  responses: [
    {
      status: 200,
      description: "A page of portfolios, ordered by code",
      schema: z.object({ data: z.array(portfolioSchema), pagination: paginationSchema }),
      headers: asAtResponseHeader,
    },
  ],
  async handle({ query }) {
    const { page, pageSize, asAt: raw, ...filter } = query;
    const asAt = asAtOf(raw);
    const result = await services().investments.listPortfolios().execute({ filter, page: { page, pageSize }, asAt });
    return {
      status: 200,
      body: { data: result.items, pagination: paginationOf(page, pageSize, result.totalItems) },
      headers: asAtHeaders(asAt),
    };
  },
});

registerEndpoint(portfoliosList);
