import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConsoleBundle } from "../shared/http/console-bundle";
import { root, TEST_JWT_KEY, TEST_WEBHOOK_KEY } from "./runtime";

/**
 * What `azd deploy` ships, made the way azd makes it for a Node.js function app (azure-dev's
 * framework_service_node.go and service_target_functionapp.go), on a fresh copy of the repository:
 *   1. restore: `npm install`, which azd skips when node_modules/.package-lock.json is not older than
 *      package-lock.json (the copy gets the project's node_modules, installed from the same lock file);
 *   2. build: `npm run build --if-present`;
 *   3. the service's `prepackage` hook from azure.yaml;
 *   4. package: `npm run build` again (it writes dist/ only), then a zip of the `dist` folder of
 *      azure.yaml (.deploy), less `.azure` folders and `local.settings.json` files, and node_modules
 *      kept because remoteBuild is false and there is no .funcignore.
 * The zip is then unpacked where no node_modules lies above it, as Azure runs it, and loaded.
 */

const PROBE = `
const Module = require("node:module");
const core = ${JSON.stringify(join(root, "dist", "local", "functions-core.js"))};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === "@azure/functions-core" ? core : resolve.call(this, request, ...rest);
};
// Every module the package loads that is not Node's own: it must bring everything else with it.
const loaded = new Set();
const load = Module._load;
Module._load = function (request, ...rest) {
  const result = load.call(this, request, ...rest);
  if (!Module.isBuiltin(request)) loaded.add(request);
  return result;
};
const { main } = JSON.parse(require("node:fs").readFileSync("package.json", "utf8"));
require(require("node:path").join(process.cwd(), main));
process.stdout.write(JSON.stringify({ loaded: [...loaded], registered: require(core).registrations.length }));
process.exit(0);
`;

interface ServiceConfig {
  project: string;
  dist: string;
  remoteBuild: boolean;
  hooks: Record<string, { posix: { shell: string; run: string } }>;
}

/** Every file of the working tree a clone would have (tracked, and new files not ignored). */
const repositoryFiles = (): string[] =>
  execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(root, f)));

/** The files azd's zip holds: the dist folder less what createDeployableZip leaves out. */
function zipOf(dist: string, remoteBuild: boolean): string[] {
  const kept: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === ".azure") continue;
        if (entry.name === "node_modules" && remoteBuild) continue;
        walk(path);
      } else if (entry.name !== "local.settings.json" && entry.name !== ".funcignore") kept.push(relative(dist, path));
    }
  };
  expect(existsSync(join(dist, ".funcignore")), "no .funcignore: azd's default exclusions apply").toBe(false);
  walk(dist);
  return kept.sort();
}

describe("the deployment package, as azd builds and zips it on a fresh copy", () => {
  let copy: string;
  let wwwroot: string;
  let zipped: string[];
  let service: ServiceConfig;
  const steps: string[] = [];

  beforeAll(() => {
    copy = mkdtempSync(join(tmpdir(), "ids-fresh-"));
    for (const file of repositoryFiles()) {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(root, file), join(copy, file), { preserveTimestamps: true });
    }
    service = (parse(readFileSync(join(copy, "azure.yaml"), "utf8")) as { services: Record<string, ServiceConfig> })
      .services.api as ServiceConfig;
    const project = join(copy, service.project);
    // 1. restore, skipped by azd when the lock file is not newer than node_modules' own record of it.
    symlinkSync(join(root, "node_modules"), join(project, "node_modules"), "dir");
    const upToDate =
      statSync(join(project, "node_modules", ".package-lock.json")).mtimeMs >=
      statSync(join(project, "package-lock.json")).mtimeMs;
    if (!upToDate) throw new Error("node_modules is older than package-lock.json: run npm ci, as azd's restore would");
    steps.push("restore: up to date");
    const run = (command: string, args: string[], label: string): void => {
      const result = spawnSync(command, args, { cwd: project, encoding: "utf8", timeout: 300_000 });
      if (result.status !== 0)
        throw new Error(`${label} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
      steps.push(label);
    };
    // 2. build
    run("npm", ["run", "build", "--if-present"], "npm run build");
    // 3. the prepackage hook, as azd runs a posix hook: its shell with the inline script.
    const hook = service.hooks.prepackage?.posix;
    if (hook !== undefined) run(hook.shell, ["-c", hook.run], `prepackage: ${hook.run}`);
    // 4. package: the build script again writes dist/ only (asserted below); then the zip.
    const dist = join(project, service.dist);
    if (!existsSync(dist) || readdirSync(dist).length === 0)
      throw new Error(`package source '${dist}' is empty or does not exist (azd stops here)`);
    zipped = zipOf(dist, service.remoteBuild);
    wwwroot = mkdtempSync(join(tmpdir(), "ids-wwwroot-"));
    for (const file of zipped) {
      mkdirSync(dirname(join(wwwroot, file)), { recursive: true });
      cpSync(join(dist, file), join(wwwroot, file));
    }
  }, 600_000);
  afterAll(() => {
    rmSync(copy, { recursive: true, force: true });
    rmSync(wwwroot, { recursive: true, force: true });
  });

  it("is built by azd's own steps: the service's prepackage hook writes the package, and the build azd runs again touches only dist/", () => {
    expect(steps).toEqual(["restore: up to date", "npm run build", "prepackage: npm run package"]);
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.build).toBe("npm run clean && tsc -p tsconfig.build.json");
    expect(
      JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8").replace(/^\s*\/\/.*$/gm, "")),
    ).toMatchObject({
      compilerOptions: { outDir: "dist" },
    });
    expect(service).toMatchObject({ dist: ".deploy", remoteBuild: false });
  });

  it("holds the app and only the app: the bundle, host.json, a manifest that neither builds nor installs, the console's files", () => {
    const top = [...new Set(zipped.map((f) => f.split("/")[0]))].sort();
    expect(top).toEqual(["dist", "host.json", "node_modules", "package.json", "shared"]);
    expect(zipped.filter((f) => f.startsWith("dist/"))).toEqual([
      "dist/functions/index.js",
      "dist/functions/index.js.LEGAL.txt",
    ]);
    expect(
      [...new Set(zipped.filter((f) => f.startsWith("node_modules/")).map((f) => f.split("/")[1]))].sort(),
    ).toEqual(["htm", "preact"]);
    expect(zipped.filter((f) => f.startsWith("shared/") && !f.startsWith("shared/console/"))).toEqual([]);
    expect(
      zipped.filter((f) => /\.ts$|\.map$|\.test\.|local\.settings|\.env$/.test(f) && !f.startsWith("node_modules/")),
    ).toEqual([]);
    expect(readFileSync(join(wwwroot, "host.json"), "utf8")).toBe(readFileSync(join(root, "host.json"), "utf8"));
    const manifest = JSON.parse(readFileSync(join(wwwroot, "package.json"), "utf8")) as Record<string, unknown>;
    expect(manifest.scripts).toBeUndefined();
    expect(manifest.devDependencies).toBeUndefined();
    expect(Object.keys(manifest.dependencies as object).sort()).toEqual(["htm", "preact"]);
    expect(manifest.main).toBe("dist/functions/index.js");
  });

  it("serves the same console as the project, from its own files", () => {
    const fromPackage = loadConsoleBundle(wwwroot);
    const fromProject = loadConsoleBundle(root);
    expect(fromPackage.version).toBe(fromProject.version);
    expect([...fromPackage.assets.keys()].sort()).toEqual([...fromProject.assets.keys()].sort());
    expect(zipped.filter((f) => f.startsWith("shared/console/") && /\.(d\.ts|json)$/.test(f))).toEqual([]);
  });

  it("registers every function from the unpacked zip, loading nothing but the worker's module from outside it", () => {
    const run = spawnSync(process.execPath, ["-e", PROBE], {
      cwd: wwwroot,
      env: {
        PATH: process.env.PATH,
        COSMOS_ENDPOINT: "https://127.0.0.1:9/",
        JWT_SIGNING_KEY: TEST_JWT_KEY,
        WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY,
        APPLICATIONINSIGHTS_CONNECTION_STRING:
          "InstrumentationKey=00000000-0000-0000-0000-000000000000;IngestionEndpoint=https://127.0.0.1:9/",
      },
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const { loaded, registered } = JSON.parse(run.stdout) as { loaded: string[]; registered: number };
    expect(loaded.filter((m) => m !== "@azure/functions-core" && !m.endsWith("dist/functions/index.js"))).toEqual([]);
    const functionFiles = readdirSync(join(root, "functions")).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "index.ts",
    );
    expect(registered).toBe(functionFiles.length);
    // The bundle starts telemetry before anything it instruments: start-telemetry is the entry point's first import.
    expect(readFileSync(join(root, "functions", "index.ts"), "utf8")).toMatch(
      /^(?:\/\*[\s\S]*?\*\/\s*)?import "\.\.\/shared\/start-telemetry";/,
    );
  });
});
