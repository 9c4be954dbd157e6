import Module from "node:module";
import { InvocationContext, type TriggerMetadata } from "@azure/functions";
import { readdirSync } from "node:fs";
import { join } from "node:path";
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
}

/** Loads every compiled function file, as the Functions host does through package.json `main`. */
export function loadFunctions(functionsDir: string): LoadedFunction[] {
  installCore();
  for (const file of readdirSync(functionsDir).filter((f) => f.endsWith(".js")).sort()) {
    require(join(functionsDir, file));
  }
  // As in Azure, the app setting `AzureWebJobs.<name>.Disabled` keeps a function from being triggered.
  const enabled = registrations.filter((r) => !["true", "1"].includes(String(process.env[`AzureWebJobs.${r.name}.Disabled`]).toLowerCase()));
  return enabled.map((r) => {
    const trigger = Object.values(r.bindings).find((b) => b.direction === "in" && b.type.endsWith("Trigger"));
    if (trigger === undefined) throw new Error(`function ${r.name} has no trigger`);
    return { name: r.name, trigger, handler: r.handler };
  });
}

/** The context of one invocation, its log lines going to the local runtime's output. */
export function invocationContext(functionName: string, log: (line: string) => void, triggerMetadata?: TriggerMetadata): InvocationContext {
  return new InvocationContext({
    functionName,
    invocationId: crypto.randomUUID(),
    logHandler: (_level, ...args) => log(args.map(String).join(" ")),
    ...(triggerMetadata !== undefined ? { triggerMetadata } : {}),
  });
}
