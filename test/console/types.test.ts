import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "../runtime";

describe("the console's modules type-check (JSDoc types, checked by tsc like the service's TypeScript)", () => {
  it("npx tsc -p shared/console reports no error", () => {
    const run = spawnSync(
      process.execPath,
      [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, "shared", "console")],
      { encoding: "utf8", timeout: 60_000 },
    );
    expect(run.stdout + run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
