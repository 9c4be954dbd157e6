import { currentTraceId } from "./observability/trace-context";

export type LogLevel = "debug" | "info" | "warn" | "error";

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Where log lines go: the invocation context in a function, stdout elsewhere. */
export type LogSink = (level: LogLevel, line: string) => void;

/** The lines of an invocation go to its context, which the Functions host sends to Application Insights. */
export const contextSink =
  (context: {
    error(line: string): void;
    warn(line: string): void;
    info(line: string): void;
    debug(line: string): void;
  }): LogSink =>
  (level, line) => {
    if (level === "error") context.error(line);
    else if (level === "warn") context.warn(line);
    else if (level === "debug") context.debug(line);
    else context.info(line);
  };

export const stdoutSink: LogSink = (level, line) =>
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);

/**
 * A structured (JSON line) logger carrying fixed fields such as the request id. A line logged within a
 * trace context (an invocation's, see observability/trace-context.ts) carries its `traceId`, the
 * operation id Application Insights groups the chain by, unless the fields name one.
 */
export class Logger {
  constructor(
    private readonly minLevel: LogLevel,
    /** Where the lines go; the local hosts hand it to the invocations they run. */
    readonly sink: LogSink = stdoutSink,
    private readonly fields: Record<string, unknown> = {},
  ) {}

  with(fields: Record<string, unknown>): Logger {
    return new Logger(this.minLevel, this.sink, { ...this.fields, ...fields });
  }

  enabled(level: LogLevel): boolean {
    return rank[level] >= rank[this.minLevel];
  }

  log(level: LogLevel, message: string, fields: Record<string, unknown> = {}): void {
    if (!this.enabled(level)) return;
    const traceId = this.fields.traceId === undefined ? currentTraceId() : undefined;
    this.sink(
      level,
      JSON.stringify({
        time: new Date().toISOString(),
        level,
        message,
        ...(traceId !== undefined ? { traceId } : {}),
        ...this.fields,
        ...fields,
      }),
    );
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.log("debug", message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.log("info", message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.log("warn", message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.log("error", message, fields);
  }
}

/** A thrown value as loggable fields (stack included: logs are internal, responses are not). */
export function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: { name: error.name, message: error.message, stack: error.stack } };
  return { error: String(error) };
}
