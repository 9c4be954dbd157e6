import { z } from "zod";
import { services } from "../shared/composition";
import { portfolioIdParams, portfolioSchema } from "../shared/domain/portfolio";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const portfoliosGet = endpoint({
  name: "portfolios-get",
  method: "GET",
  route: "api/v1/portfolios/{portfolioId}",
  summary: "Get one portfolio",
  tag: "Portfolios",
  scope: "api.read",
  params: portfolioIdParams,
  responses: [{ status: 200, description: "The portfolio", schema: z.object({ data: portfolioSchema }) }],
  errors: [404],
  async handle({ params }) {
    return { status: 200, body: { data: await services().investments.getPortfolio().execute(params.portfolioId) } };
  },
});

registerEndpoint(portfoliosGet);
