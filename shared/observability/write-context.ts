import { AsyncLocalStorage } from "node:async_hooks";
import { systemWriter, type WriteContext } from "../domain/versions";

/**
 * Who is writing, for the versions every change of investment data records (API.md, "Time travel").
 * The request-scoped part (the API client and X-Request-Id, a file's feed or blob source) is set where
 * the work enters (the HTTP pipeline, file ingestion); inner layers add what they know (an import's job,
 * valuation's `system`). The repositories read it when they write. Outside any scope: `system`.
 */
const scope = new AsyncLocalStorage<WriteContext>();

export function currentWriteContext(): WriteContext {
  return scope.getStore() ?? systemWriter;
}

/** Runs `fn` with the current write context overridden by `context`. */
export function withWriteContext<T>(context: Partial<WriteContext>, fn: () => T): T {
  return scope.run({ ...currentWriteContext(), ...context }, fn);
}
