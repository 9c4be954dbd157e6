import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configSchema, parseConfig } from "../shared/config";
import { root } from "./runtime";

/** The app settings `infra/modules/functionapp.bicep` writes, by name, with the Bicep expression of each value. */
function bicepAppSettings(): Map<string, string> {
  const bicep = readFileSync(join(root, "infra", "modules", "functionapp.bicep"), "utf8");
  const start = bicep.indexOf("name: 'appsettings'");
  const body = bicep.slice(bicep.indexOf("properties: {", start) + "properties: {".length);
  let depth = 1;
  let end = 0;
  while (depth > 0 && end < body.length) {
    if (body[end] === "{") depth++;
    if (body[end] === "}") depth--;
    end++;
  }
  return new Map(
    [...body.slice(0, end - 1).matchAll(/^\s+([A-Za-z0-9_]+):\s*(.+)$/gm)].map((m) => [
      m[1] ?? "",
      (m[2] ?? "").trim(),
    ]),
  );
}

/** The rows of the table under a `## heading` of docs/configuration.md: setting → its second column. */
function documented(heading: string): Map<string, string> {
  const page = readFileSync(join(root, "docs", "configuration.md"), "utf8");
  const start = page.indexOf(`## ${heading}`);
  expect(start, `docs/configuration.md has a section "${heading}"`).toBeGreaterThanOrEqual(0);
  const next = page.indexOf("\n## ", start + 3);
  const section = page.slice(start, next < 0 ? undefined : next);
  return new Map(
    [...section.matchAll(/^\| `([A-Za-z0-9_]+)` \| ([^|]+) \|/gm)].map((m) => [m[1] ?? "", (m[2] ?? "").trim()]),
  );
}

/** The defaults the schema gives settings that are not set (only the required ones supplied). */
const defaults = parseConfig({
  COSMOS_ENDPOINT: "http://127.0.0.1:8081",
  JWT_SIGNING_KEY: Buffer.alloc(32).toString("base64"),
  WEBHOOK_SECRET_KEY: Buffer.alloc(32).toString("base64"),
}) as Record<string, unknown>;

const asDocumented = (value: unknown): string =>
  value === undefined
    ? "unset"
    : Array.isArray(value)
      ? value.join(",")
      : typeof value === "string"
        ? value
        : JSON.stringify(value);

describe("configuration: shared/config.ts, the Bicep app settings and docs/configuration.md agree", () => {
  const settings = Object.keys(configSchema.shape);
  const bicep = bicepAppSettings();
  const setByBicep = documented("Set in Azure by `infra/`");
  const optional = documented("Optional settings");

  it("every setting the code reads is set by Bicep or documented as optional, never both", () => {
    for (const name of settings) {
      const inBicep = bicep.has(name);
      expect(inBicep || optional.has(name), `${name} is neither set by infra/ nor documented as optional`).toBe(true);
      expect(
        setByBicep.has(name),
        `${name}: docs/configuration.md lists it under "Set in Azure by infra/" ${inBicep ? "" : "but Bicep does not set it"}`,
      ).toBe(inBicep);
      expect(optional.has(name) && inBicep, `${name} is set by Bicep, so it is not optional in Azure`).toBe(false);
    }
    for (const name of [...setByBicep.keys(), ...optional.keys()])
      expect(settings, `docs/configuration.md lists ${name}, which the code does not read`).toContain(name);
  });

  it("an optional setting's documented default is the schema's", () => {
    for (const [name, documentedDefault] of optional) {
      expect(documentedDefault.replace(/`/g, ""), name).toBe(asDocumented(defaults[name]));
    }
  });

  it("every other app setting Bicep writes is one the Functions host or the Azure SDKs read, as the page says", () => {
    const page = readFileSync(join(root, "docs", "configuration.md"), "utf8");
    for (const name of bicep.keys()) {
      if (settings.includes(name)) continue;
      expect(page, `Bicep sets ${name}: docs/configuration.md says who reads it`).toContain(`\`${name}\``);
    }
  });

  it("a required setting without a default is set by Bicep", () => {
    for (const name of settings) {
      if (defaults[name] !== undefined) continue;
      const required = !configSchema.shape[name as keyof typeof configSchema.shape].safeParse(undefined).success;
      if (required) expect(bicep.has(name), `${name} is required but infra/ does not set it`).toBe(true);
    }
  });
});
