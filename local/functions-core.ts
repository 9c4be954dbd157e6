/**
 * The local host's stand-in for `@azure/functions-core`, the module the Azure Functions worker provides.
 * `@azure/functions` hands it every `app.http` / `app.timer` / ... registration; the local host reads
 * them from here, so functions register exactly as they do in Azure.
 */
export interface CoreBinding {
  type: string;
  direction: "in" | "out";
  [option: string]: unknown;
}

export interface CoreRegistration {
  name: string;
  bindings: Record<string, CoreBinding>;
  handler: (...args: unknown[]) => unknown;
  /** The function's retry policy (`retry` of its options), as the Functions host receives it. */
  retryOptions?: unknown;
}

export const registrations: CoreRegistration[] = [];

export function registerFunction(
  metadata: { name: string; bindings: Record<string, CoreBinding>; retryOptions?: unknown },
  handler: (...args: unknown[]) => unknown,
): { dispose(): void } {
  registrations.push({
    name: metadata.name,
    bindings: metadata.bindings,
    handler,
    ...(metadata.retryOptions !== undefined ? { retryOptions: metadata.retryOptions } : {}),
  });
  return { dispose: () => {} };
}

/** The programming model `@azure/functions` hands the worker: how it turns a host's invocation request into a handler's arguments. */
export let programmingModel: unknown;

export function setProgrammingModel(model: unknown): void {
  programmingModel = model;
}

/** What a hook is called with (the worker's `HookContext`s: `preInvocation` gets `PreInvocationContext`, ...). */
export type HookCallback = (context: Record<string, unknown>) => void | Promise<void>;

const hooks = new Map<string, HookCallback[]>();

/**
 * Registers a hook as the worker does (`@azure/functions`' `app.hook.*` and the Application Insights
 * distro, which activates each invocation's trace context in a `preInvocation` hook, call it).
 */
export function registerHook(hookName: string, callback: HookCallback): { dispose(): void } {
  hooks.set(hookName, [...(hooks.get(hookName) ?? []), callback]);
  return {
    dispose: () =>
      void hooks.set(
        hookName,
        (hooks.get(hookName) ?? []).filter((c) => c !== callback),
      ),
  };
}

/** The hooks registered under a name, in registration order. */
export const hooksOf = (hookName: string): readonly HookCallback[] => hooks.get(hookName) ?? [];

export function log(): void {}

export const version = "local";
