export type ErrorCode =
  | "INVALID_REQUEST"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "REQUEST_HEADER_FIELDS_TOO_LARGE"
  | "VALIDATION_ERROR"
  | "RATE_LIMIT_EXCEEDED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE";

export interface ErrorDetail {
  field: string;
  message: string;
}

/** The HTTP status of each error code: the spec's table, plus 405, 413 and 431. */
export const errorStatus: Record<ErrorCode, number> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  REQUEST_HEADER_FIELDS_TOO_LARGE: 431,
  VALIDATION_ERROR: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** The one error type the service throws on purpose; anything else becomes INTERNAL_ERROR. */
export class AppError extends Error {
  override readonly name = "AppError";
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers (Retry-After, Allow, WWW-Authenticate). */
  readonly headers: Record<string, string>;
  /**
   * The same request may succeed if simply repeated (a busy store, a write that lost a race): not a
   * final outcome, so an Idempotency-Key must not replay it.
   */
  readonly retryable: boolean;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; cause?: unknown; headers?: Record<string, string>; retryable?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
    this.retryable = options.retryable ?? code === "SERVICE_UNAVAILABLE";
  }

  get status(): number {
    return errorStatus[this.code];
  }
}

export const notFound = (what: string): AppError => new AppError("NOT_FOUND", `${what} was not found`);
