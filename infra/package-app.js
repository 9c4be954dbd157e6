// `npm run package`: the deployment package of the function app in `.deploy/`, holding only what runs
// in Azure: the deployment build (functions/ and shared/, compiled by tsconfig.build.json), host.json,
// package.json without its scripts and development dependencies, the production node_modules, and the
// System Settings console's static files (shared/console/).
// `azd deploy` zips this folder (azure.yaml: dist .deploy, remoteBuild false); so can anyone else.
// `--no-install` leaves node_modules out (to look at the package; the tests do).
"use strict";
const { execFileSync } = require("node:child_process");
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
const out = join(root, ".deploy");
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, stdio: "inherit", shell: process.platform === "win32" });

rmSync(out, { recursive: true, force: true });
mkdirSync(out);
// Compiled straight into the package, so that dist/ (the local runtime's build) is left alone.
run(
  process.execPath,
  [require.resolve("typescript/bin/tsc"), "-p", "tsconfig.build.json", "--outDir", join(out, "dist")],
  root,
);
for (const file of ["host.json", "package.json", "package-lock.json"]) cpSync(join(root, file), join(out, file));
// The console's static files, which the console functions serve from the app's root (not the type stubs or tsconfig).
const consoleFile = /\.(js|css|svg|html)$/;
cpSync(join(root, "shared", "console"), join(out, "shared", "console"), {
  recursive: true,
  filter: (source) => statSync(source).isDirectory() || consoleFile.test(source),
});

// The production dependencies, exactly as locked; no install scripts (the one of ours patches a
// development-only package, and native add-ons have pure-JavaScript fallbacks).
if (!process.argv.includes("--no-install"))
  run(npm, ["ci", "--omit=dev", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], out);

// Azure must neither build nor install again: the package is complete as it is.
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
delete manifest.scripts;
delete manifest.devDependencies;
writeFileSync(join(out, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
rmSync(join(out, "package-lock.json"));

if (!existsSync(join(out, manifest.main))) throw new Error(`the package has no entry point ${manifest.main}`);
const size = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path).reduce((sum, name) => sum + size(join(path, name)), 0)
    : statSync(path).size;
console.log(`.deploy: ${(size(out) / 1024 / 1024).toFixed(1)} MB, entry point ${manifest.main}`);
