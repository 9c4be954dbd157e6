import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { configSchema, parseConfig } from "../shared/config";
import { registrations, settingsOfRegistrations, type Registration } from "./function-registrations";
import { infraTools, missingTool } from "./infra-tools";
import { root } from "./runtime";

/**
 * The app settings `infra/modules/functionapp.bicep` writes, as the Bicep compiler compiles them: the
 * `settings` variable's names and values (ARM expressions), plus the names its union adds (JWT_ISSUER,
 * and the retired signing key's settings, written only during a rotation).
 */
interface BicepSettings {
  always: Map<string, unknown>;
  /** Written only in some deployments (a key rotation): optional as far as the code is concerned. */
  sometimes: Set<string>;
}

/** The keys of every `createObject(key, value, ...)` in an ARM expression: its even arguments, at its own depth. */
function createObjectKeys(expression: string): string[] {
  const keys: string[] = [];
  for (let at = expression.indexOf("createObject("); at >= 0; at = expression.indexOf("createObject(", at + 1)) {
    const args: string[] = [];
    let depth = 0;
    let quoted = false;
    let current = "";
    for (const ch of expression.slice(at + "createObject(".length)) {
      if (ch === "'") quoted = !quoted;
      if (!quoted && ch === "(") depth++;
      if (!quoted && ch === ")" && depth-- === 0) break;
      if (!quoted && ch === "," && depth === 0) {
        args.push(current.trim());
        current = "";
      } else current += ch;
    }
    args.push(current.trim());
    args.forEach((arg, i) => {
      if (i % 2 === 0 && /^'[A-Za-z0-9_]+'$/.test(arg)) keys.push(arg.slice(1, -1));
    });
  }
  return keys;
}

function compileAppSettings(bicep: string): BicepSettings {
  const run = spawnSync(bicep, ["build", "--stdout", join(root, "infra", "modules", "functionapp.bicep")], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (run.status !== 0) throw new Error(`bicep build failed: ${run.stderr}`);
  const template = JSON.parse(run.stdout) as {
    variables: { settings: Record<string, unknown>; previousKeySettings: string };
    resources: Record<string, { type: string; name: string; properties: unknown }>;
  };
  const appSettings = Object.values(template.resources).find(
    (r) => r.type === "Microsoft.Web/sites/config" && String(r.name).includes("appsettings"),
  );
  const union = String(appSettings?.properties);
  expect(union).toMatch(/^\[union\(variables\('settings'\), variables\('previousKeySettings'\), createObject\(/);
  const always = new Map(Object.entries(template.variables.settings));
  for (const name of createObjectKeys(union)) always.set(name, "(expression)");
  const sometimes = new Set(createObjectKeys(template.variables.previousKeySettings));
  return { always, sometimes };
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

/** Settings the service's own code reads outside the schema (`process.env.X` in functions/ and shared/). */
function directReads(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? files(join(dir, e.name))
        : e.name.endsWith(".ts") && !e.name.endsWith(".test.ts")
          ? [join(dir, e.name)]
          : [],
    );
  return [
    ...new Set(
      [...files(join(root, "functions")), ...files(join(root, "shared"))].flatMap((f) =>
        [...readFileSync(f, "utf8").matchAll(/process\.env\.([A-Za-z0-9_]+)/g)].map((m) => m[1] ?? ""),
      ),
    ),
  ];
}

/**
 * What the Functions host needs of Bicep for these registrations, as problems: each connection
 * identity-based (`<name>__credential=managedidentity`, `<name>__clientId`, and the service's address
 * under one of the names the extensions read), each `%NAME%` a setting Bicep writes on every deployment.
 */
function hostSettingProblems(registered: readonly Registration[], bicep: BicepSettings): string[] {
  const { connections, expressions } = settingsOfRegistrations(registered);
  const problems: string[] = [];
  const address = ["fullyQualifiedNamespace", "accountName", "accountEndpoint", "serviceUri", "blobServiceUri"];
  for (const [connection, functions] of connections) {
    const by = `(connection of ${functions.join(", ")})`;
    if (!address.some((a) => bicep.always.has(`${connection}__${a}`)))
      problems.push(`${connection}: Bicep sets none of ${address.map((a) => `${connection}__${a}`).join(", ")} ${by}`);
    if (bicep.always.get(`${connection}__credential`) !== "managedidentity")
      problems.push(`${connection}__credential: Bicep does not set it to managedidentity ${by}`);
    if (!bicep.always.has(`${connection}__clientId`))
      problems.push(`${connection}__clientId: Bicep does not set it ${by}`);
  }
  for (const [name, functions] of expressions)
    if (!bicep.always.has(name))
      problems.push(`${name}: %${name}% in ${functions.join(", ")}, but Bicep does not set it`);
  return problems;
}

const tools = infraTools();
const noCompiler = missingTool("bicep", tools);

describe("configuration: what the code reads, the Bicep app settings and docs/configuration.md agree", () => {
  const settings = Object.keys(configSchema.shape);
  const setByBicep = documented("Set in Azure by `infra/`");
  const optional = documented("Optional settings");
  let bicep: BicepSettings;
  let registered: Registration[];
  beforeAll(() => {
    if (!noCompiler) bicep = compileAppSettings(tools.bicep ?? "bicep");
    // Every plan's functions: the Enterprise plan registers the replica's triggers as well.
    registered = registrations({ ORGANISATION_PLAN: "enterprise" });
  }, 180_000);

  it("derives the settings from the registrations: every connection and %setting% of every function", () => {
    const { connections, expressions } = settingsOfRegistrations(registered);
    expect(registered.length).toBeGreaterThan(50);
    expect([...connections.keys()].sort()).toEqual(
      expect.arrayContaining(["AzureWebJobsStorage", "COSMOS", "SERVICEBUS"]),
    );
    expect([...expressions.keys()]).toContain("COSMOS_DATABASE");
    // The derivation reports what Bicep would miss: a new trigger's connection, a new %setting%.
    const extra: Registration = {
      name: "fx-pivot-run",
      bindings: {
        trigger: { type: "serviceBusTrigger", connection: "FX_BUS", queueName: "%FX_PIVOT_QUEUE%" },
      },
    };
    const problems = hostSettingProblems([extra], { always: new Map(), sometimes: new Set() });
    expect(problems.join("\n")).toContain("FX_BUS__credential");
    expect(problems.join("\n")).toContain("FX_PIVOT_QUEUE: %FX_PIVOT_QUEUE% in fx-pivot-run");
  });

  it.skipIf(noCompiler)("Bicep sets every setting the Functions host reads for the registered functions", () => {
    expect(hostSettingProblems(registered, bicep)).toEqual([]);
  });

  it.skipIf(noCompiler)("every setting the code reads is set by Bicep or documented as optional, never both", () => {
    const problems: string[] = [];
    for (const name of [...settings, ...directReads()]) {
      const inBicep = bicep.always.has(name);
      if (!inBicep && !optional.has(name)) problems.push(`${name} is neither set by infra/ nor documented as optional`);
      if (setByBicep.has(name) !== inBicep)
        problems.push(
          `${name}: docs/configuration.md ${setByBicep.has(name) ? "lists it under" : "does not list it under"} "Set in Azure by infra/", and Bicep ${inBicep ? "sets" : "does not set"} it`,
        );
      if (optional.has(name) && inBicep) problems.push(`${name} is set by Bicep, so it is not optional in Azure`);
    }
    for (const name of [...setByBicep.keys(), ...optional.keys()])
      if (!settings.includes(name) && !directReads().includes(name))
        problems.push(`docs/configuration.md lists ${name}, which the code does not read`);
    // Written only during a key rotation: documented as optional.
    for (const name of bicep.sometimes)
      if (!optional.has(name)) problems.push(`${name} is set only sometimes but not documented as optional`);
    expect(problems).toEqual([]);
  });

  it.skipIf(noCompiler)("a required setting without a default is set by Bicep on every deployment", () => {
    for (const name of settings) {
      if (defaults[name] !== undefined) continue;
      const required = !configSchema.shape[name as keyof typeof configSchema.shape].safeParse(undefined).success;
      if (required) expect(bicep.always.has(name), `${name} is required but infra/ does not set it`).toBe(true);
    }
  });

  it.skipIf(noCompiler)(
    "every other app setting Bicep writes is one the Functions host or the Azure SDKs read, as the page says",
    () => {
      const page = readFileSync(join(root, "docs", "configuration.md"), "utf8");
      for (const name of bicep.always.keys()) {
        if (settings.includes(name)) continue;
        expect(page, `Bicep sets ${name}: docs/configuration.md says who reads it`).toContain(`\`${name}\``);
      }
    },
  );

  it.skipIf(noCompiler)(
    "the values: Key Vault references for the secrets, the managed identity everywhere, no key",
    () => {
      const value = (name: string): string => String(bicep.always.get(name));
      for (const secret of ["JWT_SIGNING_KEY", "BOOTSTRAP_CLIENT_SECRET", "WEBHOOK_SECRET_KEY"])
        expect(value(secret)).toMatch(/^\[format\('@Microsoft\.KeyVault\(SecretUri=\{0\}\)', parameters\('\w+'\)\)\]$/);
      expect(bicep.always.has("COSMOS_KEY")).toBe(false);
      expect(bicep.always.has("AzureWebJobsStorage")).toBe(false); // a connection string would need a key
      expect(value("MESSAGE_BUS")).toBe("service-bus");
      expect(value("WEBHOOK_ALLOW_PRIVATE_NETWORKS")).toBe("false");
      expect(value("SFTP_LOGINS")).toBe("azure");
      expect(value("SFTP_PORT")).toBe("22");
      expect(value("REPLICA_ENGINE")).toBe("sqlserver");
      expect(value("REPLICA_PORT")).toBe("1433");
      expect(value("SERVICEBUS__fullyQualifiedNamespace")).toBe(value("SERVICEBUS_NAMESPACE"));
      expect(value("APPLICATIONINSIGHTS_AUTHENTICATION_STRING")).toBe(
        "[format('ClientId={0};Authorization=AAD', parameters('identityClientId'))]",
      );
      expect(value("AZURE_CLIENT_ID")).toBe("[parameters('identityClientId')]");
      expect([...bicep.sometimes].sort()).toEqual(["JWT_PREVIOUS_KEY_ID", "JWT_PREVIOUS_SIGNING_KEY"]);
    },
  );

  it("an optional setting's documented default is the schema's", () => {
    for (const [name, documentedDefault] of optional) {
      expect(documentedDefault.replace(/`/g, ""), name).toBe(asDocumented(defaults[name]));
    }
  });
});
