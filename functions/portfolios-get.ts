import { z } from "zod";
import { services } from "../shared/composition";
import { portfolioIdParams, portfolioSchema } from "../shared/domain/portfolio";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";

export const portfoliosGet = endpoint({
  name: "portfolios-get",
  method: "GET",
  route: "api/v1/portfolios/{portfolioId}",
  summary: "Get one portfolio",
  tag: "Portfolios",
  scope: "api.read",
  params: portfolioIdParams,
  query: z.object({ asAt: asAtQuery }),
  responses: [
    {
      status: 200,
      description: "The portfolio (as at asAt, when given: 404 if it was not known yet)",
      schema: z.object({ data: portfolioSchema }),
      headers: asAtResponseHeader,
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const asAt = asAtOf(query.asAt);
    const data = await services().investments.getPortfolio().execute(params.portfolioId, asAt);
    return { status: 200, body: { data }, headers: asAtHeaders(asAt) };
  },
});

registerEndpoint(portfoliosGet);
