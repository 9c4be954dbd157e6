import type { z } from "zod";
import { AppError, type ErrorCode, type ErrorDetail } from "./errors";

/** Turns zod issues into the error object's details: `field` is the dotted/indexed path, e.g. `prices[12].isin`. */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ""): ErrorDetail[] {
  return issues.slice(0, 1000).map((issue) => ({
    field: formatPath(issue.path, prefix),
    message: issue.message,
  }));
}

function formatPath(path: readonly PropertyKey[], prefix: string): string {
  let out = prefix;
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out === "" ? "body" : out;
}

/** Parses `input` with `schema` or throws an AppError carrying one detail per problem. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  code: ErrorCode,
  message: string,
  prefix = "",
): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new AppError(code, message, { details: issuesToDetails(result.error.issues, prefix) });
  }
  return result.data;
}
