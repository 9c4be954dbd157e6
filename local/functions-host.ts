import Module from "node:module";
import { InvocationContext, type TriggerMetadata } from "@azure/functions";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { LogSink } from "../shared/logging";
import { registrations, type CoreBinding, type CoreRegistration } from "./functions-core";

let installed = false;

/** Makes `require("@azure/functions-core")` resolve to the local host's registry. */
function installCore(): void {
  if (installed) return;
  installed = true;
  const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = mod._resolveFilename;
  const corePath = require.resolve("./functions-core");
  mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
    return request === "@azure/functions-core" ? corePath : original.call(this, request, ...rest);
  };
}

export interface LoadedFunction {
  name: string;
  trigger: CoreBinding;
  handler: CoreRegistration["handler"];
  retryOptions?: unknown;
}

/** Loads the app through package.json `main` (its entry point registers every function), as the Functions host does. */
export function loadFunctions(appRoot: string): LoadedFunction[] {
  installCore();
  const { main } = JSON.parse(readFileSync(join(appRoot, "package.json"), "utf8")) as { main?: string };
  if (main === undefined) throw new Error(`${join(appRoot, "package.json")} names no main entry point`);
  require(join(appRoot, main));
  // As in Azure, the app setting `AzureWebJobs.<name>.Disabled` keeps a function from being triggered.
  const enabled = registrations.filter((r) => !["true", "1"].includes(String(process.env[`AzureWebJobs.${r.name}.Disabled`]).toLowerCase()));
  return enabled.map((r) => {
    const trigger = Object.values(r.bindings).find((b) => b.direction === "in" && b.type.endsWith("Trigger"));
    if (trigger === undefined) throw new Error(`function ${r.name} has no trigger`);
    return { name: r.name, trigger, handler: r.handler, ...(r.retryOptions !== undefined ? { retryOptions: r.retryOptions } : {}) };
  });
}

/** The context of one invocation, its log lines going to the local runtime's output. */
export function invocationContext(functionName: string, sink: LogSink, triggerMetadata?: TriggerMetadata): InvocationContext {
  return new InvocationContext({
    functionName,
    invocationId: crypto.randomUUID(),
    logHandler: (level, ...args) => sink(level === "error" || level === "critical" ? "error" : level === "warning" ? "warn" : level === "debug" || level === "trace" ? "debug" : "info", args.map(String).join(" ")),
    ...(triggerMetadata !== undefined ? { triggerMetadata } : {}),
  });
}
