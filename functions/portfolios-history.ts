import { z } from "zod";
import { services } from "../shared/composition";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { portfolioIdParams, portfolioSchema } from "../shared/domain/portfolio";
import { historyEntrySchema } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const portfoliosHistory = endpoint({
  name: "portfolios-history",
  method: "GET",
  route: "api/v1/portfolios/{portfolioId}/history",
  summary:
    "The versions of a portfolio, newest first: who changed it, when, through which request or job, and how it read",
  tag: "Portfolios",
  scope: "api.read",
  params: portfolioIdParams,
  query: cursorQuery,
  responses: [
    {
      status: 200,
      description: "A page of versions",
      schema: z.object({
        data: z.array(historyEntrySchema(portfolioSchema, "PortfolioVersion")),
        pagination: cursorPaginationSchema,
      }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const request = pageRequestOf(query);
    const page = await services().investments.recordHistories().portfolio(params.portfolioId, request);
    return { status: 200, body: { data: page.items, pagination: cursorPaginationOf(request, page) } };
  },
});

registerEndpoint(portfoliosHistory);
