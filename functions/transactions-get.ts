import { z } from "zod";
import { services } from "../shared/composition";
import { idParam } from "../shared/domain/ids";
import { transactionSchema } from "../shared/domain/transaction";
import { asAtQuery } from "../shared/domain/versions";
import { asAtHeaders, asAtOf, asAtResponseHeader } from "../shared/http/as-at";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

export const transactionsGet = endpoint({
  name: "transactions-get",
  method: "GET",
  route: "api/v1/transactions/{transactionId}",
  summary: "Get one transaction by id",
  tag: "Transactions",
  scope: "api.read",
  params: z.object({ transactionId: idParam(200) }),
  query: z.object({ asAt: asAtQuery }),
  responses: [
    {
      status: 200,
      description: "The transaction (as at asAt, when given: 404 if it was not known yet)",
      schema: z.object({ data: transactionSchema }),
      headers: asAtResponseHeader,
    },
  ],
  errors: [404],
  async handle({ params, query }) {
    const asAt = asAtOf(query.asAt);
    const data = await services().investments.getTransaction().execute(params.transactionId, asAt);
    return { status: 200, body: { data }, headers: asAtHeaders(asAt) };
  },
});

registerEndpoint(transactionsGet);
