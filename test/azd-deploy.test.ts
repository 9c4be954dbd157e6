import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate } from "selfsigned";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { infraTools, missingTool } from "./infra-tools";
import { root } from "./runtime";

/**
 * `azd up` as azure.yaml defines it. Neither azd nor the Azure CLI runs here, so the hooks run against
 * stand-ins of both that record every call and answer as the real ones do for these calls (azd keeps
 * `env set` values; `az … --output tsv` prints the value or fails with the CLI's message), and against
 * an HTTPS stand-in of the function app for the smoke test. Every hook runs in both of its shells: sh
 * and PowerShell (pwsh from PATH, else PowerShell's .NET tool, restored once).
 */
interface Cli {
  dir: string;
  env: NodeJS.ProcessEnv;
  calls(): string[][];
  azdValues(): Record<string, string>;
}

interface VaultSecret {
  value: string;
  tags?: Record<string, string>;
}

function fakeClis(
  answers: {
    vaultSecrets?: Record<string, VaultSecret>;
    /** The vault refuses every read, as for an identity without a data-plane role. */
    vaultForbidden?: boolean;
    /** Key vaults `az keyvault list -g` finds, with their tags; the group exists when this is given. */
    vaultsInGroup?: { name: string; tags: Record<string, string> }[];
    blobsKey?: string;
    signedIn?: { type: "user" | "servicePrincipal"; name: string; id: string };
    sqlcmd?: "ok" | "fails";
    /** What `az rest` answers for the app's Key Vault references. */
    references?: { name: string; status: string; details: string }[];
  } = {},
): Cli {
  const dir = mkdtempSync(join(tmpdir(), "ids-azd-"));
  const log = join(dir, "calls.jsonl");
  const values = join(dir, "azd-values.json");
  writeFileSync(values, "{}");
  const recorder = (name: string, body: string): void => {
    const file = join(dir, name);
    writeFileSync(
      file,
      `#!/usr/bin/env node
const fs = require("node:fs");
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify([${JSON.stringify(name)}, ...args]) + "\\n");
${body}
`,
    );
    chmodSync(file, 0o755);
  };
  recorder(
    "azd",
    `if (args[0] === "env" && args[1] === "set") {
  const v = JSON.parse(fs.readFileSync(${JSON.stringify(values)}, "utf8")); v[args[2]] = args[3];
  fs.writeFileSync(${JSON.stringify(values)}, JSON.stringify(v));
} else process.exit(1);`,
  );
  recorder(
    "az",
    `const secrets = ${JSON.stringify(answers.vaultSecrets ?? {})};
const at = (flag) => args[args.indexOf(flag) + 1];
const is = (...words) => words.every((w, i) => args[i] === w);
if (is("keyvault", "secret", "show")) {
  if (${JSON.stringify(answers.vaultForbidden === true)}) {
    process.stderr.write("ERROR: (Forbidden) Caller is not authorized to perform action on resource. Action: 'Microsoft.KeyVault/vaults/secrets/getSecret/action'\\n");
    process.exit(1);
  }
  const secret = secrets[at("--name")];
  if (secret === undefined) { process.stderr.write("ERROR: (SecretNotFound) A secret with (name/id) " + at("--name") + " was not found in this key vault.\\n"); process.exit(3); }
  const query = at("--query");
  const value = query === "value" ? secret.value : query.startsWith("tags.") ? (secret.tags ?? {})[query.slice(5)] ?? "" : undefined;
  if (value === undefined) process.exit(2);
  process.stdout.write(value + "\\n");
} else if (is("group", "exists")) {
  process.stdout.write(${JSON.stringify(answers.vaultsInGroup !== undefined ? "true" : "false")} + "\\n");
} else if (is("keyvault", "list")) {
  const env = process.env.AZURE_ENV_NAME;
  const found = ${JSON.stringify(answers.vaultsInGroup ?? [])}.filter((v) => v.tags.application === "investment-data-service" && v.tags.environment === env);
  process.stdout.write((found[0]?.name ?? "") + "\\n");
} else if (is("functionapp", "keys", "list")) {
  ${answers.blobsKey === undefined ? 'process.stdout.write("\\n");' : `process.stdout.write(${JSON.stringify(answers.blobsKey)} + "\\n");`}
} else if (is("eventgrid", "system-topic", "event-subscription", "create")) {
} else if (is("rest")) {
  process.stdout.write(JSON.stringify({ value: ${JSON.stringify(answers.references ?? [])}.map((r) => ({ name: r.name, properties: { status: r.status, details: r.details } })) }));
} else if (is("account", "show") && at("--query") === "user.type") {
  process.stdout.write(${JSON.stringify(answers.signedIn?.type ?? "user")} + "\\n");
} else if (is("account", "show") && at("--query") === "user.name") {
  process.stdout.write(${JSON.stringify(answers.signedIn?.name ?? "")} + "\\n");
} else if (is("ad", "signed-in-user", "show")) {
  process.stdout.write((at("--query") === "id" ? ${JSON.stringify(answers.signedIn?.id ?? "")} : ${JSON.stringify(answers.signedIn?.name ?? "")}) + "\\n");
} else if (is("ad", "sp", "show")) {
  process.stdout.write(${JSON.stringify(answers.signedIn?.id ?? "")} + "\\n");
} else if (is("sql", "server", "firewall-rule")) {
} else process.exit(2);`,
  );
  if (answers.sqlcmd !== undefined)
    recorder("sqlcmd", answers.sqlcmd === "fails" ? "process.stderr.write('Login failed'); process.exit(1);" : "");
  // The hooks' waits are the CLI's, not the test's: cut them short.
  writeFileSync(join(dir, "sleep"), "#!/bin/sh\n");
  chmodSync(join(dir, "sleep"), 0o755);
  const { CI: _ci, ...inherited } = process.env;
  return {
    dir,
    env: { ...inherited, PATH: `${dir}:${process.env.PATH ?? ""}` },
    calls: () =>
      readFileSync(log, { encoding: "utf8", flag: "a+" })
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as string[]),
    azdValues: () => JSON.parse(readFileSync(values, "utf8")) as Record<string, string>,
  };
}

const tools = infraTools();
const noPwsh = missingTool("pwsh", tools);
type Shell = "sh" | "pwsh";
const shells: Shell[] = noPwsh ? ["sh"] : ["sh", "pwsh"];

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a hook as azd does: the posix script with sh, the windows one with pwsh. */
function hook(name: string, env: NodeJS.ProcessEnv, shell: Shell = "sh"): Promise<Run> {
  const [command, args] =
    shell === "sh"
      ? ["sh", [join(root, "infra", "hooks", `${name}.sh`)]]
      : [tools.pwsh ?? "pwsh", ["-NoProfile", "-NonInteractive", "-File", join(root, "infra", "hooks", `${name}.ps1`)]];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** An HTTPS stand-in of the function app: what the smoke test asks of the real one. */
interface AppStandIn {
  host: string;
  caFile: string;
  /** How it answers: a healthy app, one whose settings are unusable, one whose catch-all route shadows the host's webhook. */
  mode: "healthy" | "unresolved-reference" | "shadowed-webhook";
  requests: { method: string; path: string; headers: Record<string, unknown> }[];
  close(): Promise<void>;
}

async function appStandIn(dir: string): Promise<AppStandIn> {
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keyType: "ec",
    extensions: [{ name: "subjectAltName", altNames: [{ type: 2, value: "localhost" }] }],
  });
  const caFile = join(dir, "app-ca.pem");
  writeFileSync(caFile, pems.cert);
  const state: AppStandIn = {
    host: "",
    caFile,
    mode: "healthy",
    requests: [],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const errorBody = (code: string, message: string): string =>
    JSON.stringify({ error: { code, message, requestId: "r-1" } });
  const server: Server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "https://localhost");
      state.requests.push({ method: req.method ?? "", path: url.pathname, headers: req.headers });
      const json = (status: number, text: string): void => {
        res.writeHead(status, { "content-type": "application/json" }).end(text);
      };
      if (url.pathname === "/api/v1/openapi.json")
        return state.mode === "unresolved-reference"
          ? json(503, errorBody("SERVICE_UNAVAILABLE", "The service is not available"))
          : json(200, JSON.stringify({ openapi: "3.1.0", paths: { "/api/v1/portfolios": {} } }));
      if (url.pathname === "/runtime/webhooks/blobs") {
        if (state.mode === "shadowed-webhook") return json(404, errorBody("NOT_FOUND", "No route matches"));
        const events = JSON.parse(body) as { data: { validationCode: string } }[];
        const ok =
          req.headers["aeg-event-type"] === "SubscriptionValidation" &&
          url.searchParams.get("functionName") === "Host.Functions.feed-files-ingest" &&
          url.searchParams.get("code") === "blobs-key-123";
        return ok ? json(200, JSON.stringify({ validationResponse: events[0]?.data.validationCode })) : json(401, "");
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  state.host = `localhost:${(server.address() as AddressInfo).port}`;
  return state;
}

describe("azd: azure.yaml and its hooks", () => {
  let cli: Cli | undefined;
  let dir: string;
  let app: AppStandIn;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ids-azd-app-"));
    app = await appStandIn(dir);
  });
  afterAll(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => {
    if (cli !== undefined) rmSync(cli.dir, { recursive: true, force: true });
    cli = undefined;
    app.mode = "healthy";
    app.requests.length = 0;
  });

  it("azure.yaml: infra/main.bicep, every hook in sh and PowerShell, and the package built by the service's prepackage hook", () => {
    const project = parse(readFileSync(join(root, "azure.yaml"), "utf8")) as {
      infra: { provider: string; path: string; module: string };
      hooks: Record<string, Record<"posix" | "windows", { shell: string; run: string }>>;
      services: Record<
        string,
        {
          project: string;
          language: string;
          host: string;
          dist: string;
          remoteBuild: boolean;
          hooks: Record<string, Record<"posix" | "windows", { shell: string; run: string }>>;
        }
      >;
    };
    expect(project.infra).toEqual({ provider: "bicep", path: "infra", module: "main" });
    expect(Object.keys(project.hooks).sort()).toEqual(["postdeploy", "postprovision", "preprovision"]);
    for (const [name, variants] of Object.entries(project.hooks)) {
      expect(variants.posix).toMatchObject({ shell: "sh", run: `infra/hooks/${name}.sh` });
      expect(variants.windows).toMatchObject({ shell: "pwsh", run: `infra/hooks/${name}.ps1` });
      expect(readFileSync(join(root, variants.posix.run), "utf8")).toMatch(/^#!\/bin\/sh/);
      expect(existsSync(join(root, variants.windows.run))).toBe(true);
    }
    const api = project.services.api;
    expect(api).toMatchObject({ project: ".", language: "ts", host: "function", dist: ".deploy", remoteBuild: false });
    expect(api?.hooks.prepackage?.posix).toMatchObject({ shell: "sh", run: "npm run package" });
    expect(api?.hooks.prepackage?.windows).toMatchObject({ shell: "pwsh", run: "npm run package" });
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.package).toBe("node infra/package-app.js");
    expect(readFileSync(join(root, "infra", "main.bicep"), "utf8")).toMatch(
      /appTags: \{\s*'azd-service-name': 'api'\s*\}/,
    );
  });

  // Every case in sh; in PowerShell the cases that exercise each branch of its twins (each pwsh start
  // takes seconds).
  describe.each(shells)("in %s", { timeout: 120_000 }, (shell) => {
    const shOnly = shell === "sh" ? it : (it.skip as typeof it);
    it("preprovision generates the secrets once, in the formats main.bicep requires, when the environment has no vault", async () => {
      cli = fakeClis();
      const run = await hook(
        "preprovision",
        { ...cli.env, AZURE_ENV_NAME: "prod", AZURE_RESOURCE_GROUP: "rg-new" },
        shell,
      );
      expect(run.status, run.stderr).toBe(0);
      const values = cli.azdValues();
      expect(Buffer.from(values.JWT_SIGNING_KEY ?? "", "base64")).toHaveLength(32);
      expect(values.JWT_SIGNING_KEY).toHaveLength(44);
      expect(Buffer.from(values.WEBHOOK_SECRET_KEY ?? "", "base64")).toHaveLength(32);
      expect(values.BOOTSTRAP_CLIENT_SECRET).toMatch(/^[0-9a-f]{48}$/);
      expect(values.JWT_KEY_ID).toBe("k1");
      expect(values.JWT_PREVIOUS_SIGNING_KEY).toBeUndefined();
      expect(run.stdout).not.toContain(values.BOOTSTRAP_CLIENT_SECRET);
    });

    shOnly(
      "preprovision keeps the values the environment has, and reads missing ones back from its key vault",
      async () => {
        cli = fakeClis({ vaultSecrets: { "webhook-secret-key": { value: "V".repeat(43) + "=" } } });
        const run = await hook(
          "preprovision",
          { ...cli.env, AZURE_ENV_NAME: "prod", keyVaultName: "kvinvdataabc", JWT_SIGNING_KEY: "K".repeat(43) + "=" },
          shell,
        );
        expect(run.status, run.stderr).toBe(0);
        const values = cli.azdValues();
        expect(values.JWT_SIGNING_KEY).toBe("K".repeat(43) + "=");
        expect(values.WEBHOOK_SECRET_KEY).toBe("V".repeat(43) + "=");
        expect(values.BOOTSTRAP_CLIENT_SECRET).toMatch(/^[0-9a-f]{48}$/); // not in the vault: generated
      },
    );

    it("preprovision on a second operator's machine (a new azd environment) finds the vault by its tags and reads every secret and the rotation state back", async () => {
      cli = fakeClis({
        vaultsInGroup: [
          { name: "kvother", tags: { application: "investment-data-service", environment: "test" } },
          { name: "kvinvdataabc", tags: { application: "investment-data-service", environment: "prod" } },
        ],
        vaultSecrets: {
          "jwt-signing-key": { value: "J".repeat(43) + "=", tags: { kid: "k2", previousKid: "k1" } },
          "jwt-previous-signing-key": { value: "P".repeat(43) + "=", tags: { kid: "k1" } },
          "webhook-secret-key": { value: "W".repeat(43) + "=" },
          "bootstrap-client-secret": { value: "b".repeat(48) },
        },
      });
      const run = await hook(
        "preprovision",
        { ...cli.env, AZURE_ENV_NAME: "prod", AZURE_RESOURCE_GROUP: "rg-ids" },
        shell,
      );
      expect(run.status, run.stderr).toBe(0);
      expect(cli.azdValues()).toEqual({
        JWT_SIGNING_KEY: "J".repeat(43) + "=",
        WEBHOOK_SECRET_KEY: "W".repeat(43) + "=",
        BOOTSTRAP_CLIENT_SECRET: "b".repeat(48),
        JWT_KEY_ID: "k2",
        JWT_PREVIOUS_KEY_ID: "k1",
        JWT_PREVIOUS_SIGNING_KEY: "P".repeat(43) + "=",
      });
      expect(run.stdout).not.toMatch(/generated/);
    });

    it("preprovision stops, loudly and generating nothing, when the vault exists but cannot be read", async () => {
      cli = fakeClis({ vaultForbidden: true });
      const run = await hook(
        "preprovision",
        { ...cli.env, AZURE_ENV_NAME: "prod", keyVaultName: "kvinvdataabc" },
        shell,
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("key vault kvinvdataabc exists, but its secret jwt-signing-key cannot be read");
      expect(run.stderr).toContain("Forbidden");
      expect(run.stderr).toContain("Key Vault Secrets Officer");
      expect(run.stderr).toContain("New secrets are NOT generated");
      expect(cli.azdValues()).toEqual({});
    });

    shOnly(
      "preprovision refuses a WEBHOOK_SECRET_KEY that differs from the vault's: it must never change",
      async () => {
        cli = fakeClis({ vaultSecrets: { "webhook-secret-key": { value: "V".repeat(43) + "=" } } });
        const run = await hook(
          "preprovision",
          { ...cli.env, AZURE_ENV_NAME: "prod", keyVaultName: "kv", WEBHOOK_SECRET_KEY: "X".repeat(43) + "=" },
          shell,
        );
        expect(run.status).toBe(1);
        expect(run.stderr).toContain("must never change");
        expect(cli.azdValues().WEBHOOK_SECRET_KEY).toBeUndefined();
      },
    );

    shOnly("preprovision refuses an environment name that cannot be part of the resource names", async () => {
      cli = fakeClis();
      for (const name of ["Production", "investment-prod", "abcdefghijk", ""]) {
        const run = await hook("preprovision", { ...cli.env, AZURE_ENV_NAME: name }, shell);
        expect(run.status).toBe(1);
        expect(run.stderr).toContain("1-10 lowercase letters and digits");
      }
      expect(cli.azdValues()).toEqual({});
    });

    it("preprovision on the Enterprise plan: the SQL administrator's password (Azure SQL's policy) and the deploying identity as the Entra administrator", async () => {
      cli = fakeClis({
        signedIn: { type: "user", name: "ada@contoso.example", id: "11111111-2222-3333-4444-555555555555" },
      });
      const run = await hook(
        "preprovision",
        { ...cli.env, AZURE_ENV_NAME: "prod", ORGANISATION_PLAN: "enterprise" },
        shell,
      );
      expect(run.status, run.stderr).toBe(0);
      const values = cli.azdValues();
      expect(values.SQL_ADMINISTRATOR_PASSWORD).toMatch(/^Rp1-[A-Za-z0-9_-]{32}$/);
      expect(values).toMatchObject({
        SQL_ENTRA_ADMIN_LOGIN: "ada@contoso.example",
        SQL_ENTRA_ADMIN_OBJECT_ID: "11111111-2222-3333-4444-555555555555",
        SQL_ENTRA_ADMIN_TYPE: "User",
      });
      expect(run.stdout).not.toContain(values.SQL_ADMINISTRATOR_PASSWORD);

      rmSync(cli.dir, { recursive: true, force: true });
      cli = fakeClis({
        signedIn: { type: "servicePrincipal", name: "app-id-123", id: "99999999-8888-7777-6666-555555555555" },
      });
      const pipeline = await hook(
        "preprovision",
        { ...cli.env, AZURE_ENV_NAME: "prod", ORGANISATION_PLAN: "enterprise" },
        shell,
      );
      expect(pipeline.status, pipeline.stderr).toBe(0);
      expect(cli.azdValues()).toMatchObject({
        SQL_ENTRA_ADMIN_LOGIN: "app-id-123",
        SQL_ENTRA_ADMIN_OBJECT_ID: "99999999-8888-7777-6666-555555555555",
        SQL_ENTRA_ADMIN_TYPE: "Application",
      });
    });

    shOnly("postprovision off the Enterprise plan does nothing", async () => {
      cli = fakeClis({ sqlcmd: "ok" });
      const run = await hook(
        "postprovision",
        { ...cli.env, replicaEnabled: "false", ORGANISATION_PLAN: "standard" },
        shell,
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain("no SQL replica on this plan");
      expect(cli.calls()).toEqual([]);
    });

    it("postprovision makes the app's identity a user of the replica database through a temporary firewall rule, removed even when sqlcmd fails", async () => {
      const env = {
        AZURE_RESOURCE_GROUP: "rg-ids",
        replicaEnabled: "true",
        sqlServerName: "sql-invdata-prod-abc",
        sqlServerFqdn: "sql-invdata-prod-abc.database.windows.net",
        replicaDatabaseName: "analytics",
        managedIdentityName: "id-invdata-prod-abc",
        managedIdentityPrincipalId: "00000000-aaaa-bbbb-cccc-000000000001",
        SQL_CLIENT_IP: "203.0.113.7",
      };
      cli = fakeClis({ sqlcmd: "ok" });
      const run = await hook("postprovision", { ...cli.env, ...env }, shell);
      expect(run.status, run.stderr).toBe(0);
      const calls = cli.calls();
      expect(calls.map((c) => c.slice(0, 5).join(" "))).toEqual([
        "az sql server firewall-rule create",
        "sqlcmd --server tcp:sql-invdata-prod-abc.database.windows.net,1433 --database-name analytics",
        "az sql server firewall-rule delete",
      ]);
      const create = calls[0] ?? [];
      expect(create[create.indexOf("--start-ip-address") + 1]).toBe("203.0.113.7");
      const sqlcmd = calls[1] ?? [];
      expect(sqlcmd[sqlcmd.indexOf("--authentication-method") + 1]).toBe("ActiveDirectoryAzCli");
      const query = sqlcmd[sqlcmd.indexOf("--query") + 1] ?? "";
      expect(query).toContain(
        "CREATE USER [id-invdata-prod-abc] FROM EXTERNAL PROVIDER WITH OBJECT_ID = '00000000-aaaa-bbbb-cccc-000000000001'",
      );
      expect(query).toContain(
        "GRANT CREATE SCHEMA, CREATE TABLE, CREATE VIEW, CREATE FUNCTION, CREATE ROLE, ALTER ANY USER, ALTER ANY ROLE TO [id-invdata-prod-abc]",
      );
      // The logins' watchdog sees and ends sessions past a login's limits.
      expect(query).toContain("GRANT VIEW DATABASE STATE, KILL DATABASE CONNECTION TO [id-invdata-prod-abc]");
      expect(query).toContain("DENY EXECUTE ON sys.sp_getapplock TO replica_reader");

      rmSync(cli.dir, { recursive: true, force: true });
      cli = fakeClis({ sqlcmd: "fails" });
      const failed = await hook("postprovision", { ...cli.env, ...env }, shell);
      expect(failed.status).not.toBe(0);
      expect(
        cli
          .calls()
          .map((c) => c.slice(0, 5).join(" "))
          .at(-1),
      ).toBe("az sql server firewall-rule delete");
    });

    it("postdeploy smoke-tests the app, then subscribes feed-files-ingest to BlobCreated events of whole files under inbound/ with the host's blobs extension key", async () => {
      cli = fakeClis({ blobsKey: "blobs-key-123" });
      const run = await hook(
        "postdeploy",
        {
          ...cli.env,
          NODE_EXTRA_CA_CERTS: app.caFile,
          AZURE_RESOURCE_GROUP: "rg-ids",
          functionAppName: "func-invdata-prod-abc",
          functionAppHostName: app.host,
          blobEventsTopicName: "evgt-st-abc",
        },
        shell,
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain("smoke test: passed");
      expect(app.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        "GET /api/v1/openapi.json",
        "POST /runtime/webhooks/blobs",
      ]);
      const create = cli
        .calls()
        .find((c) => c.slice(1, 5).join(" ") === "eventgrid system-topic event-subscription create");
      const at = (flag: string) => create?.[create.indexOf(flag) + 1];
      expect(at("--system-topic-name")).toBe("evgt-st-abc");
      expect(at("--endpoint")).toBe(
        `https://${app.host}/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest&code=blobs-key-123`,
      );
      expect(at("--included-event-types")).toBe("Microsoft.Storage.BlobCreated");
      expect(at("--subject-begins-with")).toBe("/blobServices/default/containers/inbound/");
      // Only the APIs that mean a whole file is there: SftpCreate (the empty file of an SFTP upload being
      // opened) and CreateFile never reach the function. Read from the one definition of the filter.
      const filter = create?.slice(create.indexOf("--advanced-filter") + 1, create.indexOf("--output"));
      expect(filter).toEqual([
        "data.api",
        "StringIn",
        "PutBlob",
        "PutBlockList",
        "CopyBlob",
        "FlushWithClose",
        "SftpCommit",
      ]);
      const file = JSON.parse(readFileSync(join(root, "infra", "hooks", "inbound-event-filter.json"), "utf8")) as {
        advancedFilters: { key: string; operatorType: string; values: string[] }[];
      };
      expect(file.advancedFilters.flatMap((f) => [f.key, f.operatorType, ...f.values])).toEqual(filter);
      expect(readFileSync(join(root, "functions", "feed-files-ingest.ts"), "utf8")).toMatch(
        /app\.storageBlob\("feed-files-ingest"/,
      );
    });

    it("postdeploy names the unresolved Key Vault reference when the app answers 503, and subscribes nothing", async () => {
      cli = fakeClis({
        blobsKey: "blobs-key-123",
        references: [
          {
            name: "JWT_SIGNING_KEY",
            status: "AccessToKeyVaultDenied",
            details: "Key Vault reference was not able to be resolved because site was denied access",
          },
          { name: "WEBHOOK_SECRET_KEY", status: "Resolved", details: "" },
        ],
      });
      app.mode = "unresolved-reference";
      const run = await hook(
        "postdeploy",
        {
          ...cli.env,
          NODE_EXTRA_CA_CERTS: app.caFile,
          SMOKE_TEST_TIMEOUT_SECONDS: "0",
          AZURE_RESOURCE_GROUP: "rg-ids",
          functionAppName: "func-ids",
          functionAppHostName: app.host,
          blobEventsTopicName: "t",
        },
        shell,
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("answers 503 SERVICE_UNAVAILABLE");
      expect(run.stderr).toContain("JWT_SIGNING_KEY: AccessToKeyVaultDenied");
      expect(run.stderr).not.toContain("WEBHOOK_SECRET_KEY");
      expect(run.stderr).toContain("az functionapp restart --resource-group rg-ids --name func-ids");
      expect(cli.calls().filter((c) => c[1] === "eventgrid")).toEqual([]);
    });

    shOnly("postdeploy says so when the API's catch-all route answers the host's blobs webhook", async () => {
      cli = fakeClis({ blobsKey: "blobs-key-123" });
      app.mode = "shadowed-webhook";
      const run = await hook(
        "postdeploy",
        {
          ...cli.env,
          NODE_EXTRA_CA_CERTS: app.caFile,
          SMOKE_TEST_TIMEOUT_SECONDS: "0",
          AZURE_RESOURCE_GROUP: "rg",
          functionAppName: "f",
          functionAppHostName: app.host,
          blobEventsTopicName: "t",
        },
        shell,
      );
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("was answered by the API (404 NOT_FOUND), not by the Functions host");
      expect(cli.calls().filter((c) => c[1] === "eventgrid")).toEqual([]);
    });
  });

  it("postprovision says what to install when sqlcmd is missing", async () => {
    cli = fakeClis();
    const run = await hook("postprovision", {
      ...cli.env,
      PATH: `${cli.dir}:/usr/bin:/bin`,
      AZURE_RESOURCE_GROUP: "rg",
      replicaEnabled: "true",
      sqlServerName: "s",
      sqlServerFqdn: "s.example",
      replicaDatabaseName: "analytics",
      managedIdentityName: "id",
      managedIdentityPrincipalId: "x",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("install go-sqlcmd");
  });

  it("postdeploy fails with a clear message while the app has no blobs extension key", async () => {
    cli = fakeClis();
    const run = await hook("postdeploy", {
      ...cli.env,
      AZURE_RESOURCE_GROUP: "rg",
      functionAppName: "f",
      functionAppHostName: "f.example",
      blobEventsTopicName: "t",
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("no blobs_extension key yet");
    expect(cli.calls().filter((c) => c[1] === "eventgrid")).toEqual([]);
  });
});
