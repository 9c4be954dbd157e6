import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["shared/**/*.test.ts", "functions/**/*.test.ts", "local/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts", "test/browser-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    reporters: ["default"],
  },
});
