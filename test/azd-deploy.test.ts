import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { root } from "./runtime";

/**
 * `azd up` as azure.yaml defines it. Neither azd nor the Azure CLI runs here, so the hooks run against
 * stand-ins of both that record every call and answer as the real ones do for these calls (azd keeps
 * `env set` values; `az … --output tsv` prints the value or fails).
 */
interface Cli {
  dir: string;
  env: NodeJS.ProcessEnv;
  calls(): string[][];
  azdValues(): Record<string, string>;
}

function fakeClis(
  answers: {
    vaultSecrets?: Record<string, string>;
    blobsKey?: string;
    signedIn?: { type: "user" | "servicePrincipal"; name: string; id: string };
    sqlcmd?: "ok" | "fails";
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
if (args.slice(0, 3).join(" ") === "keyvault secret show") {
  if (secrets[at("--name")] === undefined) { process.stderr.write("SecretNotFound"); process.exit(3); }
  process.stdout.write(secrets[at("--name")] + "\\n");
} else if (args.slice(0, 3).join(" ") === "functionapp keys list") {
  ${answers.blobsKey === undefined ? 'process.stdout.write("\\n");' : `process.stdout.write(${JSON.stringify(answers.blobsKey)} + "\\n");`}
} else if (args.slice(0, 4).join(" ") === "eventgrid system-topic event-subscription create") {
} else if (args.slice(0, 2).join(" ") === "account show" && at("--query") === "user.type") {
  process.stdout.write(${JSON.stringify(answers.signedIn?.type ?? "user")} + "\\n");
} else if (args.slice(0, 2).join(" ") === "account show" && at("--query") === "user.name") {
  process.stdout.write(${JSON.stringify(answers.signedIn?.name ?? "")} + "\\n");
} else if (args.slice(0, 3).join(" ") === "ad signed-in-user show") {
  process.stdout.write((at("--query") === "id" ? ${JSON.stringify(answers.signedIn?.id ?? "")} : ${JSON.stringify(answers.signedIn?.name ?? "")}) + "\\n");
} else if (args.slice(0, 3).join(" ") === "ad sp show") {
  process.stdout.write(${JSON.stringify(answers.signedIn?.id ?? "")} + "\\n");
} else if (args.slice(0, 3).join(" ") === "sql server firewall-rule") {
} else process.exit(2);`,
  );
  if (answers.sqlcmd !== undefined)
    recorder("sqlcmd", answers.sqlcmd === "fails" ? "process.stderr.write('Login failed'); process.exit(1);" : "");
  return {
    dir,
    env: { ...process.env, PATH: `${dir}:${process.env.PATH ?? ""}` },
    calls: () =>
      readFileSync(log, { encoding: "utf8", flag: "a+" })
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as string[]),
    azdValues: () => JSON.parse(readFileSync(values, "utf8")) as Record<string, string>,
  };
}

const hook = (name: string, env: NodeJS.ProcessEnv) =>
  spawnSync("sh", [join(root, "infra", "hooks", `${name}.sh`)], { env, encoding: "utf8", timeout: 20_000 });

describe("azd: azure.yaml and its hooks", () => {
  let cli: Cli | undefined;
  afterEach(() => {
    if (cli !== undefined) rmSync(cli.dir, { recursive: true, force: true });
    cli = undefined;
  });

  it("azure.yaml provisions infra/main.bicep and deploys the function app from the .deploy package, built locally", () => {
    const project = parse(readFileSync(join(root, "azure.yaml"), "utf8")) as {
      infra: { provider: string; path: string; module: string };
      services: Record<string, { project: string; language: string; host: string; dist: string; remoteBuild: boolean }>;
      hooks: Record<string, { posix: { shell: string; run: string } }>;
    };
    expect(project.infra).toEqual({ provider: "bicep", path: "infra", module: "main" });
    expect(project.services).toEqual({
      api: { project: ".", language: "ts", host: "function", dist: ".deploy", remoteBuild: false },
    });
    expect(Object.keys(project.hooks).sort()).toEqual(["postdeploy", "postprovision", "preprovision"]);
    for (const h of Object.values(project.hooks))
      expect(readFileSync(join(root, h.posix.run), "utf8")).toMatch(/^#!\/bin\/sh/);
    // The package script azd runs writes the folder azure.yaml deploys.
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.package).toBe("node infra/package-app.js");
    expect(readFileSync(join(root, "infra", "package-app.js"), "utf8")).toContain('join(root, ".deploy")');
    // The function app is the one resource tagged for the service.
    expect(readFileSync(join(root, "infra", "main.bicep"), "utf8")).toMatch(
      /appTags: \{\s*'azd-service-name': 'api'\s*\}/,
    );
  });

  it("preprovision generates the three Key Vault secrets once, in the formats main.bicep requires", () => {
    cli = fakeClis();
    const run = hook("preprovision", { ...cli.env, AZURE_ENV_NAME: "prod" });
    expect(run.status, run.stderr).toBe(0);
    const values = cli.azdValues();
    expect(Buffer.from(values.JWT_SIGNING_KEY ?? "", "base64")).toHaveLength(32);
    expect(values.JWT_SIGNING_KEY).toHaveLength(44);
    expect(Buffer.from(values.WEBHOOK_SECRET_KEY ?? "", "base64")).toHaveLength(32);
    expect(values.BOOTSTRAP_CLIENT_SECRET).toMatch(/^[0-9a-f]{48}$/);
    expect(run.stdout).not.toContain(values.BOOTSTRAP_CLIENT_SECRET);
  });

  it("preprovision keeps the values the environment has, and reads missing ones back from its key vault", () => {
    cli = fakeClis({ vaultSecrets: { "webhook-secret-key": "V".repeat(43) + "=" } });
    const run = hook("preprovision", {
      ...cli.env,
      AZURE_ENV_NAME: "prod",
      keyVaultName: "kvinvdataabc",
      JWT_SIGNING_KEY: "K".repeat(43) + "=",
    });
    expect(run.status, run.stderr).toBe(0);
    const values = cli.azdValues();
    expect(values.JWT_SIGNING_KEY).toBe("K".repeat(43) + "=");
    expect(values.WEBHOOK_SECRET_KEY).toBe("V".repeat(43) + "=");
    expect(values.BOOTSTRAP_CLIENT_SECRET).toMatch(/^[0-9a-f]{48}$/); // not in the vault: generated
    expect(
      cli
        .calls()
        .filter((c) => c[0] === "az")
        .map((c) => c[c.indexOf("--name") + 1]),
    ).toEqual(["webhook-secret-key", "bootstrap-client-secret"]);
  });

  it("preprovision refuses an environment name that cannot be part of the resource names", () => {
    cli = fakeClis();
    for (const name of ["Production", "investment-prod", "abcdefghijk", ""]) {
      const run = hook("preprovision", { ...cli.env, AZURE_ENV_NAME: name });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain("1-10 lowercase letters and digits");
    }
    expect(cli.azdValues()).toEqual({});
  });

  it("preprovision on the Enterprise plan: the replica server's SQL administrator password (Azure SQL's policy) and the deploying user as its Entra administrator", () => {
    cli = fakeClis({
      signedIn: { type: "user", name: "ada@contoso.example", id: "11111111-2222-3333-4444-555555555555" },
    });
    const run = hook("preprovision", { ...cli.env, AZURE_ENV_NAME: "prod", ORGANISATION_PLAN: "enterprise" });
    expect(run.status, run.stderr).toBe(0);
    const values = cli.azdValues();
    expect(values.SQL_ADMINISTRATOR_PASSWORD).toMatch(/^Rp1-[A-Za-z0-9_-]{32}$/);
    expect(values).toMatchObject({
      SQL_ENTRA_ADMIN_LOGIN: "ada@contoso.example",
      SQL_ENTRA_ADMIN_OBJECT_ID: "11111111-2222-3333-4444-555555555555",
      SQL_ENTRA_ADMIN_TYPE: "User",
    });
    expect(run.stdout).not.toContain(values.SQL_ADMINISTRATOR_PASSWORD);

    // Signed in as a service principal (a pipeline): it is the administrator, as an application.
    cli = fakeClis({
      signedIn: { type: "servicePrincipal", name: "app-id-123", id: "99999999-8888-7777-6666-555555555555" },
    });
    const pipeline = hook("preprovision", { ...cli.env, AZURE_ENV_NAME: "prod", ORGANISATION_PLAN: "enterprise" });
    expect(pipeline.status, pipeline.stderr).toBe(0);
    expect(cli.azdValues()).toMatchObject({
      SQL_ENTRA_ADMIN_LOGIN: "app-id-123",
      SQL_ENTRA_ADMIN_OBJECT_ID: "99999999-8888-7777-6666-555555555555",
      SQL_ENTRA_ADMIN_TYPE: "Application",
    });
  });

  it("postprovision off the Enterprise plan does nothing", () => {
    cli = fakeClis({ sqlcmd: "ok" });
    const run = hook("postprovision", { ...cli.env, replicaEnabled: "false", ORGANISATION_PLAN: "standard" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("no SQL replica on this plan");
    expect(cli.calls()).toEqual([]);
  });

  it("postprovision makes the function app's identity a user of the replica database through a temporary firewall rule, removed even when sqlcmd fails", () => {
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
    const run = hook("postprovision", { ...cli.env, ...env });
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
      "GRANT CREATE SCHEMA, CREATE TABLE, CREATE ROLE, ALTER ANY USER, ALTER ANY ROLE TO [id-invdata-prod-abc]",
    );

    rmSync(cli.dir, { recursive: true, force: true });
    cli = fakeClis({ sqlcmd: "fails" });
    const failed = hook("postprovision", { ...cli.env, ...env });
    expect(failed.status).not.toBe(0);
    expect(
      cli
        .calls()
        .map((c) => c.slice(0, 5).join(" "))
        .at(-1),
    ).toBe("az sql server firewall-rule delete");
  });

  it("postprovision says what to install when sqlcmd is missing", () => {
    cli = fakeClis();
    const env = {
      ...cli.env,
      PATH: `${cli.dir}:/usr/bin:/bin`,
      AZURE_RESOURCE_GROUP: "rg",
      replicaEnabled: "true",
      sqlServerName: "s",
      sqlServerFqdn: "s.example",
      replicaDatabaseName: "analytics",
      managedIdentityName: "id",
      managedIdentityPrincipalId: "x",
    };
    const run = hook("postprovision", env);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("install go-sqlcmd");
  });

  it("postdeploy subscribes feed-files-ingest to BlobCreated events of whole files under inbound/ (the filter read from inbound-event-filter.json) with the host's blobs extension key", () => {
    cli = fakeClis({ blobsKey: "blobs-key-123" });
    const run = hook("postdeploy", {
      ...cli.env,
      AZURE_RESOURCE_GROUP: "rg-ids",
      functionAppName: "func-invdata-prod-abc",
      functionAppHostName: "func-invdata-prod-abc.azurewebsites.net",
      blobEventsTopicName: "evgt-st-abc",
    });
    expect(run.status, run.stderr).toBe(0);
    const create = cli
      .calls()
      .find((c) => c.slice(1, 5).join(" ") === "eventgrid system-topic event-subscription create");
    const at = (flag: string) => create?.[create.indexOf(flag) + 1];
    expect(at("--system-topic-name")).toBe("evgt-st-abc");
    expect(at("--endpoint")).toBe(
      "https://func-invdata-prod-abc.azurewebsites.net/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest&code=blobs-key-123",
    );
    expect(at("--included-event-types")).toBe("Microsoft.Storage.BlobCreated");
    expect(at("--subject-begins-with")).toBe("/blobServices/default/containers/inbound/");
    // Only the APIs that mean a whole file is there: SftpCreate (the empty blob of an SFTP upload
    // being opened) and CreateFile never reach the function. Read from the one definition of the filter.
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
    // The function named in the endpoint is the blob trigger the code registers.
    expect(readFileSync(join(root, "functions", "feed-files-ingest.ts"), "utf8")).toMatch(
      /app\.storageBlob\("feed-files-ingest"/,
    );
  });

  it("postdeploy fails with a clear message while the app has no blobs extension key", () => {
    cli = fakeClis();
    // The stand-in answers every key request at once; the hook's waits are what take time, so cut them short.
    writeFileSync(join(cli.dir, "sleep"), "#!/bin/sh\n");
    chmodSync(join(cli.dir, "sleep"), 0o755);
    const run = hook("postdeploy", {
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
