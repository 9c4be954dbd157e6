import { AppError, type ErrorDetail } from "../domain/errors";
import type { Logger } from "../logging";
import { errorFields } from "../logging";
import type { EndpointResult } from "./endpoint";

export interface ErrorBody {
  error: { code: string; message: string; details?: ErrorDetail[]; requestId: string };
}

/** Turns any thrown value into the spec's error object; unknown errors become a bare 500. */
export function errorResult(error: unknown, requestId: string, log: Logger): EndpointResult {
  if (error instanceof AppError) {
    if (error.status >= 500)
      log.error("request failed", { requestId, code: error.code, ...errorFields(error.cause ?? error) });
    const body: ErrorBody = {
      error: {
        code: error.code,
        message: error.message,
        ...(error.details !== undefined ? { details: error.details } : {}),
        requestId,
      },
    };
    return { status: error.status, body, headers: error.headers };
  }
  log.error("unexpected error", { requestId, ...errorFields(error) });
  const body: ErrorBody = {
    error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", requestId },
  };
  return { status: 500, body };
}
