import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { cursorPaginationOf, cursorPaginationSchema, cursorQuery, pageRequestOf } from "../shared/domain/page-request";
import { transactionSchema } from "../shared/domain/transaction";
import { historyEntrySchema } from "../shared/domain/versions";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const transactionsHistory = endpoint({
  name: "transactions-history",
  method: "GET",
  route: "api/v1/transactions/{transactionId}/history",
  summary: "The versions of a transaction (amendments, status changes), newest first",
  tag: "Transactions",
  scope: "api.read",
  params: z.object({ transactionId: idParam(200) }),
  query: cursorQuery,
  responses: [
    {
      status: 200,
      description: "A page of versions",
      schema: z.object({
        data: z.array(historyEntrySchema(transactionSchema, "TransactionVersion")),
        pagination: cursorPaginationSchema,
      }),
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const request = pageRequestOf(query);
    const page = await services().investments.recordHistories().transaction(params.transactionId, request);
    return { status: 200, body: { data: page.items, pagination: cursorPaginationOf(request, page) } };
  },
});

registerEndpoint(transactionsHistory);
