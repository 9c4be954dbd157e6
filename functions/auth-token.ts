import { z } from "zod";
import { services } from "../shared/composition";
import { endpoint } from "../shared/http/endpoint";
import { noStore, oauthErrorResult, readTokenRequest } from "../shared/http/oauth";
import { registerEndpoint } from "../shared/http/registry";

const tokenForm = z.object({
  grant_type: z.literal("client_credentials"),
  client_id: z.string().optional().meta({ description: "Or use HTTP Basic authentication" }),
  client_secret: z.string().optional().meta({ description: "Or use HTTP Basic authentication" }),
  scope: z
    .string()
    .optional()
    .meta({ description: "Space-separated scopes; omitted means every scope the client holds" }),
});

const tokenResponse = z
  .object({
    access_token: z.string(),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int().meta({ example: 3600 }),
    scope: z.string().meta({ example: "api.read" }),
  })
  .meta({ id: "TokenResponse" });

export const authToken = endpoint({
  name: "auth-token",
  method: "POST",
  route: "auth/token",
  summary: "Get an access token (OAuth 2.0 client credentials, RFC 6749 §4.4)",
  tag: "Authentication",
  scope: null,
  formBody: tokenForm,
  oauthErrors: true,
  errors: [401],
  responses: [{ status: 200, description: "The access token", schema: tokenResponse }],
  async handle({ request }) {
    const tokenRequest = await readTokenRequest(request);
    const token = await services().access.issueToken().execute(tokenRequest);
    return { status: 200, body: token, headers: noStore };
  },
});

registerEndpoint(authToken, oauthErrorResult);
