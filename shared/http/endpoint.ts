import type { Readable } from "node:stream";
import type { HttpRequest } from "@azure/functions";
import type { z } from "zod";
import type { Scope } from "../domain/api-client";
import type { Principal } from "../domain/principal";
import type { Logger } from "../logging";

export type HttpMethod = "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
export const allHttpMethods = ["GET", "POST", "PATCH", "PUT", "DELETE", "HEAD", "OPTIONS"] as const;

export interface EndpointResult {
  status: number;
  body?: unknown;
  /** A body sent as it is instead of as JSON, its Content-Type in `headers` (the console's static files). */
  bytes?: Buffer;
  /**
   * A body sent as it is read (a large file from blob storage), never held whole in memory; its
   * Content-Type and Content-Length in `headers`. Once the first byte is sent the status cannot
   * change: a source that fails midway ends the response early (the client sees fewer bytes than
   * Content-Length), so check what can fail before answering.
   */
  stream?: Readable;
  headers?: Record<string, string>;
}

export interface EndpointInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The body as received, when the endpoint has a body schema. */
  rawBody: string | undefined;
  /** The body's bytes exactly as sent (empty when there is none), on endpoints with `rawBody: "bytes"`. */
  bytes: Buffer | undefined;
  /** Undefined only on endpoints without a scope. */
  principal: Principal | undefined;
  request: HttpRequest;
  requestId: string;
  log: Logger;
}

type Infer<S> = S extends z.ZodType ? z.infer<S> : undefined;

/** One documented specialisation of an endpoint's route (see `docVariants`). */
export interface DocVariant {
  route: string;
  operationId: string;
  summary: string;
  body: z.ZodType;
}

export interface SuccessResponse {
  status: number;
  description: string;
  schema?: z.ZodType;
  headers?: Record<string, string>;
  /** The body's media type when it is not JSON (a file sent as it is): documented as binary. */
  contentType?: string;
}

/** One HTTP operation: its route, scope, input schemas, documented responses and handler. */
export interface Endpoint<
  PS extends z.ZodType | undefined = z.ZodType | undefined,
  QS extends z.ZodType | undefined = z.ZodType | undefined,
  BS extends z.ZodType | undefined = z.ZodType | undefined,
> {
  /** The function name, matching its file in functions/. */
  name: string;
  /** "ANY" only for the catch-all. */
  method: HttpMethod | "ANY";
  /** Functions route template, e.g. `api/v1/portfolios/{portfolioId}`. */
  route: string;
  summary: string;
  tag: string;
  /** The scope required, or null for a public endpoint (the OpenAPI document). */
  scope: Scope | null;
  params?: PS;
  query?: QS;
  body?: BS;
  /** Request headers the endpoint reads (documentation only). */
  docHeaders?: z.ZodObject;
  /** Documents the body instead of `body` (when `body` only checks the outline and the handler validates the rest). */
  docBody?: z.ZodType;
  /**
   * Further operations the same function serves, each documented on its own: the route with its
   * parameters filled in, its own operation id, summary and body (the import of one data type, so
   * that a generated client knows each body). Same scope, headers, responses and errors.
   */
  docVariants?: readonly DocVariant[];
  /** Documents a form-encoded body the handler parses itself (the token endpoint). */
  formBody?: z.ZodType;
  /** Errors use RFC 6749's shape instead of the error object (the token endpoint). */
  oauthErrors?: boolean;
  /** Left out of the OpenAPI document (the catch-all). */
  hidden?: boolean;
  /**
   * `"bytes"`: the body is a file of any content type, handed to the handler byte-exact as `bytes`
   * (never decoded as text, never parsed as JSON); `body` must then be absent.
   */
  rawBody?: "bytes";
  /** Documents a `rawBody: "bytes"` body. */
  rawBodyDescription?: string;
  /**
   * `false`: not counted against the caller's rate limit (the console's static files: served from
   * memory, a page load fetches dozens, and counting each would cost a store write).
   */
  rateLimited?: false;
  /** Largest accepted body in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  responses: SuccessResponse[];
  /** Error statuses this endpoint can answer beyond the common ones (400, 401, 403, 429, 500). */
  errors?: number[];
  handle(input: EndpointInput<Infer<PS>, Infer<QS>, Infer<BS>>): Promise<EndpointResult>;
}

export type AnyEndpoint = Endpoint<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

/** Keeps the generic parameters inferred from the schemas at the call site. */
export function endpoint<
  PS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  BS extends z.ZodType | undefined = undefined,
>(definition: Endpoint<PS, QS, BS>): Endpoint<PS, QS, BS> {
  return definition;
}
