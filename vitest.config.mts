import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: {
      // Its ES module build exports `default` only: tests load the CommonJS build, as the compiled service does.
      "@azure/functions-extensions-base": fileURLToPath(
        new URL(
          "./node_modules/@azure/functions-extensions-base/dist/azure-functions-extensions-base.js",
          import.meta.url,
        ),
      ),
    },
  },
  test: {
    include: ["shared/**/*.test.ts", "functions/**/*.test.ts", "local/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts", "test/console/browser-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
