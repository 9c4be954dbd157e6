import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { root } from "./runtime";

export interface InfraTools {
  bicep: string | null;
  pwsh: string | null;
  problems: string[];
}

let tools: InfraTools | undefined;

/**
 * The Bicep compiler and PowerShell, from PATH or restored once into infra/.tools by the .NET SDK
 * (`node infra/tools/restore.js`). Run as a child process: its lock makes parallel workers restore once.
 */
export function infraTools(): InfraTools {
  tools ??= JSON.parse(
    execFileSync(process.execPath, [join(root, "infra", "tools", "restore.js")], {
      encoding: "utf8",
      timeout: 900_000,
    }),
  ) as InfraTools;
  return tools;
}

/**
 * A tool the checks need could not be had: said loudly, and under CI (CI=true) a failure, never a skip.
 * Returns whether the caller should skip its checks (outside CI only).
 */
export function missingTool(name: "bicep" | "pwsh", found: InfraTools): boolean {
  if (found[name] !== null) return false;
  const why = found.problems.filter((p) => p.startsWith(`${name}:`)).join("\n") || `${name} could not be had`;
  const banner = `\n${"!".repeat(78)}\n!! ${name.toUpperCase()} IS MISSING: the checks that need it did NOT run.\n!! ${why}\n${"!".repeat(78)}\n`;
  if (process.env.CI === "true") throw new Error(`${banner}Under CI=true this is a failure.`);
  console.error(banner);
  return true;
}
