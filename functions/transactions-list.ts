import { z } from "zod";
import { services } from "../shared/composition";
import { isoDate } from "../shared/domain/dates";
import { cursorPaginationSchema, cursorQuery } from "../shared/domain/page-request";
import { transactionSchema, transactionStatusSchema, transactionTypeSchema } from "../shared/domain/transaction";
import { asAtQuery } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { asAtResponseHeader, datedListQuery, listAnswer } from "../shared/http/as-at";
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
    const { request, asAt, filter } = datedListQuery(query);
    const result = await services().investments.listTransactions().execute({ filter, page: request, asAt });
    return listAnswer(request, result, asAt);
  },
});

registerEndpoint(transactionsList);
