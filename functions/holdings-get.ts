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
    fxMethod: z
      .enum(["identity", "direct", "inverse", "cross"])
      .nullable()
      .meta({ description: "How fxRate was found: identity, direct, inverse, or cross (through fxPivot)" }),
    fxPivot: z.string().nullable().meta({
      description: "The currency a cross rate went through (FX_PIVOT_CURRENCIES); null unless fxMethod is cross",
    }),
    marketValue: z
      .number()
      .nullable()
      .meta({ description: "In the portfolio's base currency; null when the holding cannot be valued (see unvalued)" }),
    weight: z.number().nullable().meta({
      description:
        "marketValue / totalValue, where totalValue sums the valued holdings only (so when complete is false the weights add up to 1 over the valued holdings); null when unvalued",
    }),
    unvalued: z.enum(["MISSING_PRICE", "MISSING_FX_RATE", "UNKNOWN_SECURITY", "VALUE_OUT_OF_RANGE"]).nullable().meta({
      description:
        "Why the holding has no market value: no price on or before the date, no FX path into the base currency, a security the service does not know, or figures beyond what can be computed. Null when valued",
    }),
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
    totalValue: z.number().meta({
      description: "Sum of the valued holdings' market values; it leaves out the unvaluedCount holdings without one",
    }),
    complete: z.boolean().meta({
      description:
        "true when every holding listed has a market value; false when totalValue and the weights leave some out (unvaluedCount of them, each with unvalued saying why)",
    }),
    unvaluedCount: z.number().int().meta({ description: "Holdings listed without a market value" }),
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
