import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { root, TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

export interface Registration {
  name: string;
  bindings: Record<string, Record<string, unknown>>;
}

/**
 * Every function the compiled app registers (dist/, `npm run build:local`), with its bindings as the
 * Functions host receives them: the entry point loaded in a process of its own, the local host's
 * stand-in playing `@azure/functions-core`. `env` adds app settings (the Enterprise plan registers
 * the replica's triggers too).
 */
export function registrations(env: Record<string, string> = {}): Registration[] {
  const probe = `
require(${JSON.stringify(join(root, "dist", "local", "core-module.js"))}).installCore();
require(${JSON.stringify(join(root, "dist", "functions", "index.js"))});
const { registrations } = require(${JSON.stringify(join(root, "dist", "local", "functions-core.js"))});
process.stdout.write(JSON.stringify(registrations.map((r) => ({ name: r.name, bindings: r.bindings }))));
process.exit(0);
`;
  const run = spawnSync(process.execPath, ["-e", probe], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      COSMOS_ENDPOINT: "https://127.0.0.1:9/",
      JWT_SIGNING_KEY: TEST_JWT_KEY,
      WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
      LOG_LEVEL: "error",
      ...env,
    },
    encoding: "utf8",
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`loading the app failed (${run.status}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Registration[];
}

/**
 * The app settings the Functions host reads for these registrations: each binding's `connection`
 * (an identity-based connection is `<name>__…` settings) and each `%NAME%` in a binding's options.
 */
export function settingsOfRegistrations(registered: readonly Registration[]): {
  connections: Map<string, string[]>;
  expressions: Map<string, string[]>;
} {
  const connections = new Map<string, string[]>();
  const expressions = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, fn: string): void => {
    map.set(key, [...new Set([...(map.get(key) ?? []), fn])]);
  };
  for (const { name, bindings } of registered)
    for (const binding of Object.values(bindings))
      for (const [option, value] of Object.entries(binding)) {
        if (typeof value !== "string") continue;
        if (option === "connection") add(connections, value, name);
        for (const m of value.matchAll(/%([A-Za-z0-9_.]+)%/g)) add(expressions, m[1] ?? "", name);
      }
  return { connections, expressions };
}
