// npm postinstall: applies patches/ (fixes to development-only dependencies: the local Cosmos DB
// stand-in's query engine) with patch-package. A production install (`npm ci --omit=dev`) has
// neither patch-package nor anything to patch, and must not fail for it.
const { execFileSync } = require("node:child_process");

let cli;
try {
  cli = require.resolve("patch-package");
} catch {
  process.exit(0);
}
execFileSync(process.execPath, [cli, "--error-on-fail"], { stdio: "inherit" });
