import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queueNames } from "../shared/ports/message-bus";
import { infraTools, missingTool } from "./infra-tools";
import { root } from "./runtime";

/**
 * infra/ through the real Bicep compiler (the one `az bicep` runs): every .bicep file builds and lints
 * with no diagnostic at all, under infra/bicepconfig.json, which makes every linter rule an error.
 * The checks after that read the compiled ARM templates and assert what no compiler can: the
 * security rules of this service (roles, networks, keys), and that the templates match the code
 * (queues against triggers, containers against partition keys). The app settings' contract with the
 * code is test/configuration.test.ts's.
 */

const infra = join(root, "infra");
const bicepFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? e.name.startsWith(".")
        ? []
        : bicepFiles(join(dir, e.name))
      : e.name.endsWith(".bicep")
        ? [join(dir, e.name)]
        : [],
  );
const source = (file: string): string => readFileSync(join(infra, file), "utf8");

type Json = Record<string, any>;

const tools = infraTools();
const skip = missingTool("bicep", tools);
let out: string;
let diagnostics: { build: string; lint: string };
const template = (file: string): Json => JSON.parse(readFileSync(join(out, file), "utf8")) as Json;

/** Runs the compiler; its diagnostics (stderr and stdout) as one text. */
function bicep(args: string[], cwd = root): { status: number | null; text: string } {
  const run = spawnSync(tools.bicep ?? "bicep", args, { cwd, encoding: "utf8", timeout: 180_000 });
  return { status: run.status, text: `${run.stdout}${run.stderr}`.trim() };
}

/** The compiled template of a module main.bicep deploys, by its symbolic name. */
const moduleTemplate = (name: string): Json => template("main.json").resources[name].properties.template as Json;

describe.skipIf(skip)("infra/*.bicep through the Bicep compiler", () => {
  beforeAll(() => {
    out = mkdtempSync(join(tmpdir(), "ids-bicep-"));
    const build = bicep(["build", "--pattern", "infra/**/*.bicep", "--outdir", out]);
    const lint = bicep(["lint", "--pattern", "infra/**/*.bicep"]);
    diagnostics = { build: `${build.status}: ${build.text}`, lint: `${lint.status}: ${lint.text}` };
  }, 240_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("builds and lints every .bicep file without a single diagnostic", () => {
    expect(bicepFiles(infra).length).toBeGreaterThan(10);
    expect(diagnostics.build).toBe("0: ");
    expect(diagnostics.lint).toBe("0: ");
    for (const file of bicepFiles(infra))
      expect(() => template(relative(infra, file).replace(/\.bicep$/, ".json")), file).not.toThrow();
  });

  it("makes every linter rule an error, and the checks catch what they are for", () => {
    const config = JSON.parse(source("bicepconfig.json")) as {
      analyzers: { core: { enabled: boolean; rules: Record<string, { level: string }> } };
    };
    expect(config.analyzers.core.enabled).toBe(true);
    for (const [rule, { level }] of Object.entries(config.analyzers.core.rules)) expect(level, rule).toBe("error");
    for (const rule of [
      "no-hardcoded-env-urls",
      "secure-secrets-in-params",
      "outputs-should-not-contain-secrets",
      "use-secure-value-for-secure-inputs",
      "no-unused-params",
      "what-if-short-circuiting",
    ])
      expect(Object.keys(config.analyzers.core.rules)).toContain(rule);

    // A template with an unknown property, a wrong type and a hard-coded environment URL, under the
    // same configuration: each is reported (the first two are the compiler's warnings, which exit 0:
    // the check above fails on any diagnostic, not on the exit code).
    const dir = mkdtempSync(join(tmpdir(), "ids-bicep-bad-"));
    try {
      cpSync(join(infra, "bicepconfig.json"), join(dir, "bicepconfig.json"));
      writeFileSync(
        join(dir, "bad.bicep"),
        [
          "@description('Where.')",
          "param location string",
          "resource s 'Microsoft.Storage/storageAccounts@2023-05-01' = {",
          "  name: 'stbad${uniqueString(resourceGroup().id)}'",
          "  location: location",
          "  kind: 'StorageV2'",
          "  sku: { name: 'Standard_LRS' }",
          "  properties: { allowSharedKeyAccesss: false, minimumTlsVersion: 12 }",
          "}",
          "@description('Portal.')",
          "output portal string = 'https://management.azure.com${s.id}'",
          "",
        ].join("\n"),
      );
      const lint = bicep(["lint", join(dir, "bad.bicep")], dir);
      expect(lint.text).toMatch(/Warning BCP0(37|89): The property "allowSharedKeyAccesss" is not allowed/);
      expect(lint.text).toMatch(/Warning BCP036: The property "minimumTlsVersion" expected a value of type/);
      expect(lint.text).toMatch(/Error no-hardcoded-env-urls/);
      expect(lint.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("labels every role GUID with the role's name and grants no Owner, Contributor or key-listing role", () => {
    const guid = /'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'/i;
    const forbidden = new Map([
      ["8e3af657-a8ff-443c-a75c-2fe8c4bcb635", "Owner"],
      ["b24988ac-6180-42a0-ab88-20f7382dd24c", "Contributor"],
      ["17d1049b-9a84-46fb-8f53-869881c3d3ab", "Storage Account Contributor"],
      ["18d7d88d-d35e-4fb5-a5c3-7773c20a72d9", "User Access Administrator"],
    ]);
    const problems: string[] = [];
    for (const file of bicepFiles(infra))
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((line, i) => {
          const match = guid.exec(line);
          if (match?.[1] === undefined || line.trimStart().startsWith("//")) return;
          const at = `${relative(root, file)}:${i + 1}`;
          if (!/\/\/\s*\S/.test(line.slice(match.index))) problems.push(`${at}: role GUID ${match[1]} has no // name`);
          const bad = forbidden.get(match[1].toLowerCase());
          if (bad !== undefined) problems.push(`${at}: grants ${bad}`);
        });
    expect(problems).toEqual([]);
    // No list* call anywhere (listKeys, listSecrets, listConnectionStrings, listAccountSas, ...).
    const compiled = readdirSync(out, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".json"))
      .map((f) => readFileSync(join(out, f), "utf8"))
      .join("\n");
    expect(compiled).not.toMatch(/\blist[A-Z]\w*\(/);
    expect(compiled).not.toMatch(/AccountKey=|SharedAccessKey=/);
  });

  it("gives the app's identity the documented data-plane roles on the narrowest scope: Service Bus Data Owner per triggered queue, not the namespace", () => {
    const roles = moduleTemplate("roles").resources as Json;
    const roleOf = (name: string): string => String(roles[name].properties.roleDefinitionId);
    expect(roles.storageAssignments.scope).toMatch(/Microsoft\.Storage\/storageAccounts/);
    expect(source("modules/roles.bicep")).toMatch(
      /var storageRoles = \[\s*storageBlobDataOwner\s*storageQueueDataContributor\s*\]/,
    );
    expect(roles.triggeredQueueOwners.scope).toContain("Microsoft.ServiceBus/namespaces/queues");
    expect(roleOf("triggeredQueueOwners")).toContain("serviceBusDataOwner");
    expect(roles.serviceBusSender.scope).toMatch(/Microsoft\.ServiceBus\/namespaces'/);
    expect(roleOf("serviceBusSender")).toContain("serviceBusDataSender");
    expect(roleOf("keyVaultSecretsUserAssignment")).toContain("keyVaultSecretsUser");
    expect(roleOf("monitoringMetricsPublisherAssignment")).toContain("monitoringMetricsPublisher");
    // Role assignment names come from names known before the deployment (what-if can predict them).
    for (const [name, resource] of Object.entries(roles))
      if (String(resource.type) === "Microsoft.Authorization/roleAssignments")
        expect(String(resource.name), name).not.toContain("principalId");
    // The queues given Data Owner are exactly the queues with a trigger.
    const triggered = readdirSync(join(root, "functions"))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .flatMap((f) =>
        [
          ...readFileSync(join(root, "functions", f), "utf8").matchAll(
            /registerQueueFunction\("[\w-]+",\s*\{\s*queueName:\s*"([\w-]+)"/g,
          ),
        ].map((m) => m[1]),
      );
    const main = template("main.json");
    expect([...(main.variables.serviceBusQueueNames as string[])].sort()).toEqual([...queueNames].sort());
    expect(main.resources.roles.properties.parameters.triggeredQueueNames.value).toBe(
      "[variables('serviceBusQueueNames')]",
    );
    expect([...new Set(triggered)].sort()).toEqual([...(main.variables.serviceBusQueueNames as string[])].sort());
  });

  it("lets the identity manage the storage account's SFTP local users, and nothing more, on that account only", () => {
    const roles = moduleTemplate("roles");
    const definition = roles.resources.sftpLocalUsersRole as Json;
    expect(definition.properties.type).toBe("CustomRole");
    expect(roles.variables.sftpLocalUserActions).toEqual([
      "Microsoft.Storage/storageAccounts/localusers/read",
      "Microsoft.Storage/storageAccounts/localusers/write",
      "Microsoft.Storage/storageAccounts/localusers/delete",
      "Microsoft.Storage/storageAccounts/localusers/regeneratePassword/action",
    ]);
    const assignment = roles.resources.sftpLocalUsersAssignment as Json;
    expect(assignment.scope).toMatch(/Microsoft\.Storage\/storageAccounts/);
    expect(assignment.properties.roleDefinitionId).toContain("'sftp-local-users')");
    const storage = moduleTemplate("storage").resources.storage.properties as Json;
    expect(storage).toMatchObject({
      isHnsEnabled: true,
      isSftpEnabled: true,
      isLocalUserEnabled: true,
      allowSharedKeyAccess: false,
      allowBlobPublicAccess: false,
    });
  });

  it("keeps the deployment package where the app's own identity has no role: its own account, written by the deployment identity only", () => {
    const main = template("main.json");
    const deployment = moduleTemplate("deploymentStorage");
    expect(deployment.resources.storage.properties.allowSharedKeyAccess).toBe(false);
    expect(deployment.resources.deploymentWriter.scope).toContain("blobServices/containers");
    expect(main.resources.deploymentStorage.properties.parameters.deploymentPrincipalId.value).toContain(
      "reference('deploymentIdentity')",
    );
    const site = moduleTemplate("functionApp").resources.functionApp.properties as Json;
    expect(site.functionAppConfig.deployment.storage.authentication.userAssignedIdentityResourceId).toBe(
      "[parameters('deploymentIdentityId')]",
    );
    expect(site.functionAppConfig.runtime).toEqual({ name: "node", version: "22" });
    // Nothing in roles.bicep names the deployment account.
    expect(JSON.stringify(moduleTemplate("roles"))).not.toMatch(/deploymentStorage|stpkg/);
  });

  it("turns off shared keys and local auth everywhere, Application Insights included", () => {
    const compiled = JSON.stringify(template("main.json"));
    expect(moduleTemplate("cosmos").resources.account.properties.disableLocalAuth).toBe(true);
    expect(moduleTemplate("serviceBus").resources.namespace.properties.disableLocalAuth).toBe(true);
    expect(template("main.json").parameters.appInsightsDisableLocalAuth.defaultValue).toBe(true);
    expect(moduleTemplate("monitoring").resources.appInsights.properties.DisableLocalAuth).toBe(
      "[parameters('disableLocalAuth')]",
    );
    const vault = moduleTemplate("keyVault").resources.vault.properties as Json;
    expect(vault).toMatchObject({ enableRbacAuthorization: true, enablePurgeProtection: true });
    expect(compiled).toContain("Authorization=AAD");
  });

  it("lets the deploying identity read the secrets back: Key Vault Secrets Officer on the vault, from azd's AZURE_PRINCIPAL_ID", () => {
    const vault = moduleTemplate("keyVault");
    expect(vault.resources.deployerSecretsOfficer.condition).toBe("[not(empty(parameters('deployerPrincipalId')))]");
    expect(vault.variables.keyVaultSecretsOfficer).toBe("b86a8fe4-44ce-4948-aee5-eccb2c155cd7");
    const parameters = JSON.parse(source("main.parameters.json")) as { parameters: Record<string, { value: unknown }> };
    expect(parameters.parameters.deployerPrincipalId?.value).toBe("${AZURE_PRINCIPAL_ID}");
    expect(parameters.parameters.deployerPrincipalType?.value).toBe("${AZURE_PRINCIPAL_TYPE=User}");
    // The rotation state goes with the key, for the next operator's preprovision to read back.
    expect(vault.resources.jwtSigningKeySecret.tags).toEqual({
      kid: "[parameters('jwtKeyId')]",
      previousKid: "[parameters('jwtPreviousKeyId')]",
    });
  });

  it("puts the replica (Enterprise) behind a private endpoint the app reaches over VNet integration, with no 0.0.0.0 rule: BI users come in from the parameter's ranges only", () => {
    const sql = moduleTemplate("sql");
    const compiled = JSON.stringify(sql);
    expect(compiled).not.toContain("0.0.0.0");
    expect(compiled).not.toContain("AllowAllWindowsAzureIps");
    expect(sql.resources.clientRules.copy.count).toContain("variables('clientRanges')");
    expect(sql.resources.clientRules.properties.startIpAddress).toContain("parseCidr");
    expect(sql.resources.privateEndpoint.properties.privateLinkServiceConnections[0].properties.groupIds).toEqual([
      "sqlServer",
    ]);
    expect(sql.resources.server.properties.administrators.azureADOnlyAuthentication).toBe(false);
    expect(sql.resources.server.properties.minimalTlsVersion).toBe("1.2");
    const network = moduleTemplate("network").resources.vnet.properties.subnets as Json[];
    const app = network.find((s) => s.name === "app");
    expect(app?.properties.delegations[0].properties.serviceName).toBe("Microsoft.App/environments");
    expect(app?.properties.defaultOutboundAccess).toBe(false);
    expect(app?.properties.natGateway).toBeDefined();
    const main = template("main.json");
    expect(main.resources.sql.condition).toBe("[variables('replicaEnabled')]");
    expect(main.resources.network.condition).toBe("[variables('replicaEnabled')]");
    expect(JSON.stringify(main.resources.functionApp.properties.parameters.virtualNetworkSubnetId)).toContain(
      "reference('network').outputs.appSubnetId",
    );
    expect(moduleTemplate("functionApp").resources.functionApp.properties.virtualNetworkSubnetId).toContain(
      "parameters('virtualNetworkSubnetId')",
    );
    // The hook that makes the app's identity a database user reads these outputs.
    for (const output of [
      "replicaEnabled",
      "sqlServerName",
      "sqlServerFqdn",
      "replicaDatabaseName",
      "managedIdentityName",
      "managedIdentityPrincipalId",
    ])
      expect(Object.keys(main.outputs)).toContain(output);
    // The triggers name the connection whose settings these are, and the leases container Bicep makes.
    const trigger = readFileSync(join(root, "shared", "triggers", "replica-trigger.ts"), "utf8");
    expect(trigger).toMatch(/connection: "COSMOS"/);
    expect(trigger).toMatch(/leaseContainerName: "leases"/);
  });

  it("creates the Cosmos DB containers with the partition keys the code queries by", () => {
    const containers = (moduleTemplate("cosmos").variables.containers as { name: string; partitionKey: string }[]).map(
      (c) => `${c.name} ${c.partitionKey}`,
    );
    expect(containers.sort()).toEqual(
      [
        "portfolios /id",
        "securities /id",
        "prices /securityId",
        "fxRates /pair",
        "positions /portfolioId",
        "transactions /portfolioId",
        "versions /key",
        "jobs /id",
        "exceptions /id",
        "settings /kind",
        "audit /resourceKey",
        "events /id",
        "deliveries /webhookId",
        "counters /key",
        "runs /ownerId",
        "leases /id",
      ].sort(),
    );
  });

  it("gives customers a module granting the service Storage Blob Data Reader on one container of theirs", () => {
    const reader = template("customer/blob-source-reader.json");
    expect(Object.keys(reader.parameters as Json)).toEqual(["storageAccountName", "containerName", "principalId"]);
    expect(reader.variables.storageBlobDataReader).toBe("2a2b9908-6ea1-4ae2-8e65-a410df84e7d1");
    const assignments = (reader.resources as Json[]).filter(
      (r) => r.type === "Microsoft.Authorization/roleAssignments",
    );
    expect(assignments).toHaveLength(1);
    expect(assignments[0]?.scope).toContain("blobServices/containers");
    expect(template("main.json").outputs.managedIdentityPrincipalId.value).toContain("reference('identity')");
  });

  it("keeps secrets out of main.parameters.json: secure parameters come from the azd environment", () => {
    const parameters = JSON.parse(source("main.parameters.json")) as { parameters: Record<string, { value: unknown }> };
    const declared = template("main.json").parameters as Record<string, { type: string }>;
    for (const [name, { value }] of Object.entries(parameters.parameters)) {
      expect(declared[name], `main.parameters.json sets unknown parameter ${name}`).toBeDefined();
      if (declared[name]?.type === "securestring") expect(value, name).toMatch(/^\$\{[A-Z_]+\}$/);
    }
    const secure = Object.entries(declared)
      .filter(([, p]) => p.type === "securestring")
      .map(([name]) => name);
    expect(secure.sort()).toEqual(
      [
        "bootstrapClientSecret",
        "jwtPreviousSigningKey",
        "jwtSigningKey",
        "sqlAdministratorPassword",
        "webhookSecretKey",
      ].sort(),
    );
    for (const name of secure) expect(Object.keys(parameters.parameters)).toContain(name);
    expect(parameters.parameters.environmentName?.value).toBe("${AZURE_ENV_NAME}");
    expect(parameters.parameters.jwtKeyId?.value).toBe("${JWT_KEY_ID=k1}");
    expect(parameters.parameters.jwtPreviousKeyId?.value).toBe("${JWT_PREVIOUS_KEY_ID}");
  });
});
