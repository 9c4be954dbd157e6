import { z } from "zod";
import { services } from "../shared/composition";
import { portfolioCreateSchema, portfolioSchema } from "../shared/domain/portfolio";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const portfoliosCreate = endpoint({
  name: "portfolios-create",
  method: "POST",
  route: "api/v1/portfolios",
  summary: "Create a portfolio (standard, composite with memberIds, or fund)",
  tag: "Portfolios",
  scope: "api.write",
  body: portfolioCreateSchema,
  responses: [
    {
      status: 201,
      description: "Created",
      schema: z.object({ data: portfolioSchema }),
      headers: { Location: "URL of the new portfolio" },
    },
  ],
  errors: [409, 413],
  async handle({ body }) {
    const portfolio = await services().investments.createPortfolio().execute(body);
    return { status: 201, body: { data: portfolio }, headers: { Location: `/api/v1/portfolios/${portfolio.id}` } };
  },
});

registerEndpoint(portfoliosCreate);
