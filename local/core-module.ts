import Module from "node:module";

let installed = false;

/** Makes `require("@azure/functions-core")` resolve to the local host's registry (functions-core.ts), as the worker provides the module in Azure. */
export function installCore(): void {
  if (installed) return;
  installed = true;
  const mod = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = mod._resolveFilename;
  const corePath = require.resolve("./functions-core");
  mod._resolveFilename = function (request: string, ...rest: unknown[]): string {
    return request === "@azure/functions-core" ? corePath : original.call(this, request, ...rest);
  };
}
