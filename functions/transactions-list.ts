import { z } from "zod";
import { services } from "../shared/composition";
import { isoDate } from "../shared/domain/dates";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { transactionSchema, transactionStatusSchema, transactionTypeSchema } from "../shared/domain/transaction";
import { checkRange } from "../shared/http/date-range";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { registerEndpoint } from "../shared/http/registry";

export const transactionsList = endpoint({
  name: "transactions-list",
  method: "GET",
  route: "api/v1/transactions",
  summary: "List transactions; filters combine; from/to filter tradeDate inclusive; sorted by tradeDate",
  tag: "Transactions",
  scope: "api.read",
  query: cursorQuery.extend({
    portfolioId: z.string().min(1).max(200).optional(),
    securityId: z.string().min(1).max(200).optional(),
    from: isoDate.optional(),
    to: isoDate.optional(),
    type: transactionTypeSchema.optional(),
    status: transactionStatusSchema.optional(),
    asAt: asAtQuery,
  }),
  responses: [
    {
      status: 200,
      description: "A page of transactions",
      schema: z.object({ data: z.array(transactionSchema), pagination: cursorPaginationSchema }),
      headers: asAtResponseHeader,
    },
  ],
  async handle({ query }) {
    const { page, pageSize, cursor, asAt: raw, ...filter } = query;
    checkRange(filter.from, filter.to);
    const asAt = asAtOf(raw);
    const request = pageRequestOf({ page, pageSize, cursor });
    const defined = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined));
    const result = await services().investments.listTransactions().execute({ filter: defined, page: request, asAt });
    return {
      status: 200,
      body: { data: result.items, pagination: cursorPaginationOf(request, result) },
      headers: asAtHeaders(asAt),
    };
  },
});

registerEndpoint(transactionsList);
