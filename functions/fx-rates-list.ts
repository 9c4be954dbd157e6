import { z } from "zod";
import { services } from "../shared/composition";
import { currencyCode } from "../shared/domain/currency";
import { isoDate } from "../shared/domain/dates";
import { fxRateSchema } from "../shared/domain/fx-rate";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { asAtQuery } from "../shared/domain/versions";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { checkRange } from "../shared/http/date-range";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const fxRatesList = endpoint({
  name: "fx-rates-list",
  method: "GET",
  route: "api/v1/fx-rates",
  summary:
    "List FX rates (1 baseCurrency = rate quoteCurrency), sorted by date, then pair, then source; from/to filter date inclusive",
  tag: "FX rates",
  scope: "api.read",
  query: cursorQuery.extend({
    baseCurrency: currencyCode.optional(),
    quoteCurrency: currencyCode.optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
    asAt: asAtQuery,
  }),
  responses: [
    {
      status: 200,
      description: "A page of FX rates",
      schema: z.object({ data: z.array(fxRateSchema), pagination: cursorPaginationSchema }),
      headers: asAtResponseHeader,
    },
  ],
  async handle({ query }) {
    const { page, pageSize, cursor, asAt: raw, ...filter } = query;
    checkRange(filter.from, filter.to);
    const asAt = asAtOf(raw);
    const request = pageRequestOf({ page, pageSize, cursor });
    const defined = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
    const result = await services().investments.listFxRates().execute({ filter: defined, page: request, asAt });
    return {
      status: 200,
      body: { data: result.items, pagination: cursorPaginationOf(request, result) },
      headers: asAtHeaders(asAt),
    };
  },
});

registerEndpoint(fxRatesList);
