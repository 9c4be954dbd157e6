import { z } from "zod";
import { services } from "../shared/composition";
import { currencyCode } from "../shared/domain/currency";
import { isoDate } from "../shared/domain/dates";
import { fxRateSchema } from "../shared/domain/fx-rate";
import { cursorPaginationSchema, cursorQuery } from "../shared/domain/page-request";
import { asAtQuery } from "../shared/domain/versions";
import { asAtResponseHeader, datedListQuery, listAnswer } from "../shared/http/as-at";
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
    const { request, asAt, filter } = datedListQuery(query);
    const result = await services().investments.listFxRates().execute({ filter, page: request, asAt });
    return listAnswer(request, result, asAt);
  },
});

registerEndpoint(fxRatesList);
