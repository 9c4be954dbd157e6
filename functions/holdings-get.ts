import { z } from "zod";
import { services } from "../shared/composition";
import { isoDate } from "../shared/domain/dates";
import { portfolioIdParams } from "../shared/domain/portfolio";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { booleanQuery } from "../shared/http/query";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";

const holdingSchema = z
  .object({
    securityId: z.string(),
    isin: z.string().nullable(),
    name: z.string(),
    assetClass: z.string(),
    quantity: z.number(),
    price: z.number().nullable(),
    priceDate: z.string().nullable(),
    priceType: z.string().nullable(),
    priceCurrency: z.string().nullable(),
    fxRate: z.number().nullable(),
    fxMethod: z.string().nullable().meta({ description: "identity, direct, inverse or cross (through USD)" }),
    marketValue: z.number().nullable().meta({ description: "In the portfolio's base currency" }),
    weight: z.number().nullable(),
    via: z
      .array(z.string())
      .optional()
      .meta({ description: "Fund security ids a looked-through holding came through, outermost first" }),
  })
  .meta({ id: "Holding" });

const holdingsSchema = z
  .object({
    portfolioId: z.string(),
    date: z.string().nullable(),
    baseCurrency: z.string(),
    lookThrough: z.boolean(),
    totalValue: z.number(),
    holdings: z.array(holdingSchema),
  })
  .meta({ id: "Holdings" });

export const holdingsGet = endpoint({
  name: "holdings-get",
  method: "GET",
  route: "api/v1/portfolios/{portfolioId}/holdings",
  summary: "Holdings of a portfolio on a date (the latest valuation on or before it), optionally looked through funds",
  tag: "Portfolios",
  scope: "api.read",
  params: portfolioIdParams,
  query: z.object({
    date: isoDate.optional().meta({ description: "Default: the latest valuation date" }),
    lookThrough: booleanQuery(false).meta({ description: "Expand fund holdings pro rata" }),
    asAt: asAtQuery.meta({
      description:
        "The state of knowledge (date picks the snapshot): the valuation that was current at this instant, never a new computation; ISO 8601 with Z or an offset, not in the future",
    }),
  }),
  responses: [
    {
      status: 200,
      description: "The holdings",
      schema: z.object({ data: holdingsSchema }),
      headers: asAtResponseHeader,
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const asAt = asAtOf(query.asAt);
    const data = await services()
      .investments.getHoldings()
      .execute({ portfolioId: params.portfolioId, date: query.date, lookThrough: query.lookThrough, asAt });
    return { status: 200, body: { data }, headers: asAtHeaders(asAt) };
  },
});

registerEndpoint(holdingsGet);
