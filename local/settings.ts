import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The local runtime's settings, as the Functions Core Tools would read them: `local.settings.json`
 * (or, on a fresh clone, `local.settings.example.json`) `Values`, with the process environment winning.
 */
export function loadLocalSettings(
  root: string,
  env: NodeJS.ProcessEnv = process.env,
): { values: Record<string, string>; source: string } {
  const own = join(root, "local.settings.json");
  const example = join(root, "local.settings.example.json");
  const source = existsSync(own) ? own : example;
  const parsed = JSON.parse(readFileSync(source, "utf8")) as { Values?: Record<string, string> };
  const values: Record<string, string> = { ...(parsed.Values ?? {}) };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) values[key] = value;
  return { values, source };
}
