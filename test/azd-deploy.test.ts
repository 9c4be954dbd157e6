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

function fakeClis(answers: { vaultSecrets?: Record<string, string>; blobsKey?: string } = {}): Cli {
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
} else process.exit(2);`,
  );
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

const hook = (name: string, env: NodeJS.ProcessEnv) => spawnSync("sh", [join(root, "infra", "hooks", `${name}.sh`)], { env, encoding: "utf8", timeout: 20_000 });

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
    expect(project.services).toEqual({ api: { project: ".", language: "ts", host: "function", dist: ".deploy", remoteBuild: false } });
    expect(Object.keys(project.hooks).sort()).toEqual(["postdeploy", "preprovision"]);
    for (const h of Object.values(project.hooks)) expect(readFileSync(join(root, h.posix.run), "utf8")).toMatch(/^#!\/bin\/sh/);
    // The package script azd runs writes the folder azure.yaml deploys.
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(manifest.scripts.package).toBe("node infra/package-app.js");
    expect(readFileSync(join(root, "infra", "package-app.js"), "utf8")).toContain('join(root, ".deploy")');
    // The function app is the one resource tagged for the service.
    expect(readFileSync(join(root, "infra", "main.bicep"), "utf8")).toMatch(/appTags: \{\s*'azd-service-name': 'api'\s*\}/);
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
    const run = hook("preprovision", { ...cli.env, AZURE_ENV_NAME: "prod", keyVaultName: "kvinvdataabc", JWT_SIGNING_KEY: "K".repeat(43) + "=" });
    expect(run.status, run.stderr).toBe(0);
    const values = cli.azdValues();
    expect(values.JWT_SIGNING_KEY).toBe("K".repeat(43) + "=");
    expect(values.WEBHOOK_SECRET_KEY).toBe("V".repeat(43) + "=");
    expect(values.BOOTSTRAP_CLIENT_SECRET).toMatch(/^[0-9a-f]{48}$/); // not in the vault: generated
    expect(cli.calls().filter((c) => c[0] === "az").map((c) => c[c.indexOf("--name") + 1])).toEqual(["webhook-secret-key", "bootstrap-client-secret"]);
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

  it("postdeploy subscribes feed-files-ingest to BlobCreated events under inbound/ with the host's blobs extension key", () => {
    cli = fakeClis({ blobsKey: "blobs-key-123" });
    const run = hook("postdeploy", {
      ...cli.env,
      AZURE_RESOURCE_GROUP: "rg-ids",
      functionAppName: "func-invdata-prod-abc",
      functionAppHostName: "func-invdata-prod-abc.azurewebsites.net",
      blobEventsTopicName: "evgt-st-abc",
    });
    expect(run.status, run.stderr).toBe(0);
    const create = cli.calls().find((c) => c.slice(1, 5).join(" ") === "eventgrid system-topic event-subscription create");
    const at = (flag: string) => create?.[create.indexOf(flag) + 1];
    expect(at("--system-topic-name")).toBe("evgt-st-abc");
    expect(at("--endpoint")).toBe("https://func-invdata-prod-abc.azurewebsites.net/runtime/webhooks/blobs?functionName=Host.Functions.feed-files-ingest&code=blobs-key-123");
    expect(at("--included-event-types")).toBe("Microsoft.Storage.BlobCreated");
    expect(at("--subject-begins-with")).toBe("/blobServices/default/containers/inbound/");
    // The function named in the endpoint is the blob trigger the code registers.
    expect(readFileSync(join(root, "functions", "feed-files-ingest.ts"), "utf8")).toMatch(/app\.storageBlob\("feed-files-ingest"/);
  });

  it("postdeploy fails with a clear message while the app has no blobs extension key", () => {
    cli = fakeClis();
    // The stand-in answers every key request at once; the hook's waits are what take time, so cut them short.
    writeFileSync(join(cli.dir, "sleep"), "#!/bin/sh\n");
    chmodSync(join(cli.dir, "sleep"), 0o755);
    const run = hook("postdeploy", { ...cli.env, AZURE_RESOURCE_GROUP: "rg", functionAppName: "f", functionAppHostName: "f.example", blobEventsTopicName: "t" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("no blobs_extension key yet");
    expect(cli.calls().filter((c) => c[1] === "eventgrid")).toEqual([]);
  });
});
