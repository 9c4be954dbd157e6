import { z } from "zod";
import { services } from "../shared/composition";
import { portfolioIdParams, portfolioPatchSchema, portfolioSchema } from "../shared/domain/portfolio";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const portfoliosPatch = endpoint({
  name: "portfolios-patch",
  method: "PATCH",
  route: "api/v1/portfolios/{portfolioId}",
  summary: "Rename a portfolio or change its status (active ⇄ inactive, either → archived; archived is final)",
  tag: "Portfolios",
  scope: "api.write",
  params: portfolioIdParams,
  body: portfolioPatchSchema,
  responses: [{ status: 200, description: "The updated portfolio", schema: z.object({ data: portfolioSchema }) }],
  errors: [404, 409, 413],
  async handle({ params, body }) {
    return {
      status: 200,
      body: { data: await services().investments.updatePortfolio().execute({ id: params.portfolioId, patch: body }) },
    };
  },
});

registerEndpoint(portfoliosPatch);
