// `npm run package`: the deployment package of the function app in `.deploy/`, holding only what runs
// in Azure:
//   dist/functions/index.js  the app (package.json `main`) and every production dependency it imports,
//                            bundled by esbuild into one file: the worker loads one file instead of the
//                            thousands of a production node_modules (bench/cold-start.ts measures it);
//   shared/console/          the System Settings console's static files, which the console serves;
//   node_modules/preact, htm the console's vendor modules, served as files (read, never required);
//   host.json, package.json  the host's settings; the manifest without scripts or dependencies to install.
// azd runs it before it zips `.deploy` (azure.yaml: the service's prepackage hook), and so can anyone.
"use strict";
const { buildSync } = require("esbuild");
const {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} = require("node:fs");
const { join } = require("node:path");

const root = join(__dirname, "..");

/** The manifest's production dependencies the package ships as files (the console's vendor modules). */
const SHIPPED_PACKAGES = ["preact", "htm"];

/**
 * Bundles the app's entry point into `outfile`: every import resolved now, so that nothing is looked
 * up in a node_modules at run time.
 */
function bundle(outfile) {
  buildSync({
    entryPoints: [join(root, "functions", "index.ts")],
    outfile,
    bundle: true,
    platform: "node",
    // Runs on Node 20 and 22 (the app runs on 22 in Azure; CI and developers may have 20).
    target: "node20",
    format: "cjs",
    tsconfig: join(root, "tsconfig.build.json"),
    logLevel: "warning",
    external: [
      // Provided by the Functions worker, never installed.
      "@azure/functions-core",
      // Optional native add-ons their packages load inside try/catch and do without (ssh2, pg):
      // native code would tie the package to one Node ABI, as install scripts would.
      "pg-native",
      "cpu-features",
      "*.node",
    ],
    alias: {
      // Its package exports ES modules to `import`; the bundle, like the tsc build, takes its CommonJS build.
      "@azure/functions-extensions-base": join(
        root,
        "node_modules/@azure/functions-extensions-base/dist/azure-functions-extensions-base.js",
      ),
    },
    // ES modules among the dependencies read import.meta.url (createRequire); in a CommonJS bundle it is this file's URL.
    banner: { js: "const __importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { "import.meta.url": "__importMetaUrl" },
    legalComments: "linked",
  });
}

/** Writes the deployment package into `out` (replacing it). */
function packageApp(out = join(root, ".deploy")) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  bundle(join(out, manifest.main));

  cpSync(join(root, "host.json"), join(out, "host.json"));
  // The console's static files, which the console functions serve from the app's root (not the type stubs or tsconfig).
  const consoleFile = /\.(js|css|svg|html)$/;
  cpSync(join(root, "shared", "console"), join(out, "shared", "console"), {
    recursive: true,
    filter: (source) => statSync(source).isDirectory() || consoleFile.test(source),
  });
  for (const name of SHIPPED_PACKAGES)
    cpSync(join(root, "node_modules", name), join(out, "node_modules", name), { recursive: true, dereference: true });

  // Azure must neither build nor install: the package is complete as it is.
  const shipped = Object.fromEntries(SHIPPED_PACKAGES.map((name) => [name, manifest.dependencies[name]]));
  const deployed = { ...manifest, dependencies: shipped };
  delete deployed.scripts;
  delete deployed.devDependencies;
  writeFileSync(join(out, "package.json"), `${JSON.stringify(deployed, null, 2)}\n`);

  if (!existsSync(join(out, manifest.main))) throw new Error(`the package has no entry point ${manifest.main}`);
  return { out, bytes: size(out), main: manifest.main };
}

/** Bytes of the files under `path`. */
function size(path) {
  return statSync(path).isDirectory()
    ? readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0)
    : statSync(path).size;
}

module.exports = { bundle, packageApp, size };

if (require.main === module) {
  const { out, bytes, main } = packageApp();
  console.log(`${out}: ${(bytes / 1024 / 1024).toFixed(1)} MB, entry point ${main}`);
}
