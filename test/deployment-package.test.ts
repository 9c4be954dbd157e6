import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConsoleBundle } from "../shared/http/console-bundle";
import { root, TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

const deploy = join(root, ".deploy");

/**
 * Loads the package's entry point as the Functions worker would (the worker provides
 * `@azure/functions-core`; the local host's stand-in plays it here) and reports the order in which
 * packages were first loaded and how many functions registered.
 */
const PROBE = `
const Module = require("node:module");
const core = ${JSON.stringify(join(root, "dist", "local", "functions-core.js"))};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "@azure/functions-core" ? core : resolve.call(this, request, ...rest);
};
const order = [];
const load = Module._load;
Module._load = function (request, ...rest) {
  const name = /^(@[^/]+\\/[^/]+|[^./][^/]*)/.exec(request)?.[1];
  if (name !== undefined && !order.includes(name)) order.push(name);
  return load.call(this, request, ...rest);
};
require(require("node:path").join(process.cwd(), require("./package.json").main));
process.stdout.write(JSON.stringify({ order, registered: require(core).registrations.length }));
process.exit(0);
`;

describe("the deployment package (npm run package → .deploy, what azd deploys)", () => {
  // Without its node_modules (`npm ci --omit=dev` there takes minutes): the entry point then resolves
  // packages from the project's own node_modules, one folder up.
  beforeAll(() => {
    execFileSync("npm", ["run", "package", "--", "--no-install"], { cwd: root, stdio: "ignore" });
  }, 120_000);

  it("holds the deployment build, host.json and a package.json that neither builds nor installs", () => {
    expect(readdirSync(deploy).sort()).toEqual(["dist", "host.json", "package.json", "shared"]);
    expect(readdirSync(join(deploy, "dist")).sort()).toEqual(["functions", "shared"]);
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [e.name]));
    const compiled = files(join(deploy, "dist"));
    expect(compiled.filter((f) => /\.test\.js$/.test(f))).toEqual([]);
    expect(compiled.length).toBeGreaterThan(100);

    const manifest = JSON.parse(readFileSync(join(deploy, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(existsSync(join(deploy, String(manifest.main)))).toBe(true);
    // @azure/functions is pinned exactly: the local host depends on its contract with the worker.
    expect((manifest.dependencies as Record<string, string>)["@azure/functions"]).toMatch(/^\d+\.\d+\.\d+$/);
    // Its dependencies are the locked production ones, installed without scripts.
    expect(readFileSync(join(root, "infra", "package-app.js"), "utf8")).toMatch(
      /\["ci", "--omit=dev", "--ignore-scripts"/,
    );
  });

  it("holds the console's static files, so that the package serves the same console as the project", () => {
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    const shipped = files(join(deploy, "shared", "console")).map((f) =>
      f.slice(join(deploy, "shared", "console").length + 1),
    );
    expect(shipped).toContain("index.html");
    expect(shipped).toContain("main.js");
    // The type stubs and the type-checking configuration stay behind.
    expect(shipped.filter((f) => f.endsWith(".d.ts") || f.endsWith(".json"))).toEqual([]);
    const fromPackage = loadConsoleBundle(deploy);
    const fromProject = loadConsoleBundle(root);
    expect(fromPackage.version).toBe(fromProject.version);
    expect([...fromPackage.assets.keys()].sort()).toEqual([...fromProject.assets.keys()].sort());
    // preact and htm, which the console's vendor files come from, are production dependencies.
    const manifest = JSON.parse(readFileSync(join(deploy, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    expect(manifest.dependencies.preact).toMatch(/^\d+\.\d+\.\d+$/);
    expect(manifest.dependencies.htm).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it("starts telemetry before any Azure SDK loads, then registers every function", () => {
    const run = spawnSync(process.execPath, ["-e", PROBE], {
      cwd: deploy,
      env: {
        ...process.env,
        COSMOS_ENDPOINT: "https://127.0.0.1:9/",
        JWT_SIGNING_KEY: TEST_JWT_KEY,
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
        APPLICATIONINSIGHTS_CONNECTION_STRING:
          "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const { order, registered } = JSON.parse(run.stdout) as { order: string[]; registered: number };
    const first = (name: string): number => order.indexOf(name);
    expect(first("applicationinsights")).toBeGreaterThanOrEqual(0);
    for (const sdk of [
      "@azure/functions",
      "@azure/cosmos",
      "@azure/storage-blob",
      "@azure/identity",
      "@azure/service-bus",
    ]) {
      expect(first(sdk), `${sdk} loaded`).toBeGreaterThan(first("applicationinsights"));
    }
    const functionFiles = readdirSync(join(root, "functions")).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "index.ts",
    );
    expect(registered).toBe(functionFiles.length);
  });
});
