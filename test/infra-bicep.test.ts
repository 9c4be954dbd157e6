import { describe, it, expect } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import Parser from "tree-sitter";
import Bicep from "tree-sitter-bicep";
import { configSchema } from "../shared/config";
import { queueNames } from "../shared/ports/message-bus";

// No Bicep compiler can be installed here, so the deployment is checked with the tree-sitter
// grammar: every file must parse cleanly, modules must be wired to real parameters and outputs,
// and the security rules (managed identity, least privilege, no keys) and the app-setting contract of
// shared/config.ts must hold.

type Node = Parser.SyntaxNode;

const repoRoot = resolve(__dirname, "..");
const infraDir = join(repoRoot, "infra");

const parser = new Parser();
parser.setLanguage(Bicep as unknown as Parser.Language);

function bicepFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) return bicepFilesUnder(full);
      return entry.name.endsWith(".bicep") ? [full] : [];
    })
    .sort();
}

function parseSource(source: string): Parser.Tree {
  // The default 32 KiB input buffer rejects larger strings; size it to the file.
  return parser.parse(source, null, { bufferSize: Math.max(32 * 1024, source.length * 2 + 1) });
}

const files = bicepFilesUnder(infraDir);
const sources = new Map(files.map((f) => [f, readFileSync(f, "utf8")] as const));
const trees = new Map(files.map((f) => [f, parseSource(sources.get(f) ?? "")] as const));

function rel(file: string): string {
  return relative(repoRoot, file);
}

function source(file: string): string {
  const text = sources.get(file);
  if (text === undefined) throw new Error(`not loaded: ${file}`);
  return text;
}

function root(file: string): Node {
  const tree = trees.get(file);
  if (tree === undefined) throw new Error(`not parsed: ${file}`);
  return tree.rootNode;
}

function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const child of node.children) walk(child, visit);
}

/** Every ERROR and MISSING node, as "file:line:column description". */
function syntaxProblems(file: string, node: Node): string[] {
  const found: string[] = [];
  walk(node, (n) => {
    if (!n.isError && !n.isMissing) return;
    const at = `${file}:${n.startPosition.row + 1}:${n.startPosition.column + 1}`;
    found.push(
      n.isMissing
        ? `${at} MISSING ${n.type}`
        : `${at} ERROR near ${JSON.stringify(n.text.split("\n")[0]?.slice(0, 60))}`,
    );
  });
  return found;
}

/** The text of a plain string literal, or undefined for anything else (interpolations included). */
function literal(node: Node | null | undefined): string | undefined {
  if (!node || node.type !== "string") return undefined;
  if (node.namedChildren.some((c) => c.type !== "string_content" && c.type !== "escape_sequence")) {
    return undefined;
  }
  return node.text.slice(1, -1);
}

function keyOf(property: Node): string {
  const key = property.namedChildren[0];
  if (!key) return "";
  return literal(key) ?? key.text;
}

function valueOf(property: Node): Node | undefined {
  return property.namedChildren.at(-1);
}

function propertiesOf(object: Node | undefined): Map<string, Node> {
  const result = new Map<string, Node>();
  if (object?.type !== "object") return result;
  for (const property of object.namedChildren) {
    if (property.type !== "object_property") continue;
    const value = valueOf(property);
    if (value) result.set(keyOf(property), value);
  }
  return result;
}

function declarations(file: string, type: string): Node[] {
  return root(file).namedChildren.filter((n) => n.type === type);
}

function declaredName(declaration: Node): string {
  return declaration.namedChildren.find((c) => c.type === "identifier")?.text ?? "";
}

/** Decorator names (description, secure, ...) written above a declaration. */
function decoratorsOf(declaration: Node): string[] {
  const previous = declaration.previousNamedSibling;
  if (previous?.type !== "decorators") return [];
  return previous.namedChildren.map(
    (d) => d.namedChildren[0]?.childForFieldName("function")?.text ?? d.namedChildren[0]?.text ?? "",
  );
}

interface ParamInfo {
  name: string;
  required: boolean;
  secure: boolean;
  documented: boolean;
}

function paramsOf(file: string): ParamInfo[] {
  return declarations(file, "parameter_declaration").map((p) => {
    const decorators = decoratorsOf(p);
    return {
      name: declaredName(p),
      required: !p.children.some((c) => c.type === "="),
      secure: decorators.includes("secure"),
      documented: decorators.includes("description"),
    };
  });
}

function outputsOf(file: string): string[] {
  return declarations(file, "output_declaration").map(declaredName);
}

interface ModuleInfo {
  symbol: string;
  target: string;
  params: Map<string, Node>;
  node: Node;
}

function modulesOf(file: string): ModuleInfo[] {
  return declarations(file, "module_declaration").map((m) => {
    const path = literal(m.namedChildren.find((c) => c.type === "string")) ?? "";
    // `module x '…' = if (condition) { … }`: the body is inside the if.
    const body =
      m.namedChildren.find((c) => c.type === "object") ??
      m.namedChildren.find((c) => c.type === "if_statement")?.namedChildren.find((c) => c.type === "object");
    return {
      symbol: declaredName(m),
      target: resolve(dirname(file), path),
      params: propertiesOf(propertiesOf(body).get("params")),
      node: m,
    };
  });
}

/** Output names read through `<symbol>.outputs.<name>` anywhere in the file. */
function outputReads(file: string, symbol: string): string[] {
  const names = new Set<string>();
  walk(root(file), (n) => {
    if (n.type !== "member_expression") return;
    const object = n.childForFieldName("object");
    if (
      object?.type === "member_expression" &&
      object.childForFieldName("object")?.text === symbol &&
      object.childForFieldName("property")?.text === "outputs"
    ) {
      names.add(n.childForFieldName("property")?.text ?? "");
    }
  });
  return [...names];
}

/** The `properties` object of the site's `appsettings` config resource. */
function appSettings(): Map<string, Node> {
  for (const file of files) {
    for (const resource of declarations(file, "resource_declaration")) {
      const type = literal(resource.namedChildren.find((c) => c.type === "string")) ?? "";
      if (!type.startsWith("Microsoft.Web/sites/config@")) continue;
      const body = propertiesOf(resource.namedChildren.find((c) => c.type === "object"));
      if (literal(body.get("name")) !== "appsettings") continue;
      return propertiesOf(body.get("properties"));
    }
  }
  return new Map();
}

function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
}

describe("infra/*.bicep", () => {
  it("has main.bicep, its parameters file and modules", () => {
    expect(files.map(rel)).toContain(join("infra", "main.bicep"));
    expect(existsSync(join(infraDir, "main.parameters.json"))).toBe(true);
    expect(files.filter((f) => f.includes(`${join("infra", "modules")}`)).length).toBeGreaterThan(1);
  });

  it("uses a parser that reports syntax errors", () => {
    const broken = "resource s 'Microsoft.Storage/storageAccounts@2023-05-01' = {\n  name: \n";
    expect(syntaxProblems("snippet.bicep", parseSource(broken).rootNode)).not.toEqual([]);
  });

  it.each(files.map((f) => [rel(f), f] as const))("%s parses without ERROR or MISSING nodes", (name, file) => {
    expect(syntaxProblems(name, root(file))).toEqual([]);
  });

  it("passes modules only parameters they declare, and every required one", () => {
    const problems: string[] = [];
    for (const file of files) {
      for (const module of modulesOf(file)) {
        const where = `${rel(file)}:${module.node.startPosition.row + 1} module ${module.symbol}`;
        if (!sources.has(module.target)) {
          problems.push(`${where}: no such file ${rel(module.target)}`);
          continue;
        }
        const declared = paramsOf(module.target);
        for (const given of module.params.keys()) {
          if (!declared.some((p) => p.name === given)) problems.push(`${where}: unknown param ${given}`);
        }
        for (const param of declared) {
          if (param.required && !module.params.has(param.name)) {
            problems.push(`${where}: missing required param ${param.name}`);
          }
        }
        const outputs = outputsOf(module.target);
        for (const read of outputReads(file, module.symbol)) {
          if (!outputs.includes(read)) problems.push(`${where}: reads undeclared output ${read}`);
        }
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("documents every parameter and keeps secrets out of outputs", () => {
    const problems: string[] = [];
    for (const file of files) {
      const params = paramsOf(file);
      for (const p of params) {
        if (!p.documented) problems.push(`${rel(file)}: param ${p.name} has no @description`);
        if (!/^[a-z][A-Za-z0-9]*$/.test(p.name)) problems.push(`${rel(file)}: param ${p.name} is not camelCase`);
      }
      const secure = new Set(params.filter((p) => p.secure).map((p) => p.name));
      for (const output of declarations(file, "output_declaration")) {
        walk(output, (n) => {
          if (n.type === "identifier" && secure.has(n.text)) {
            problems.push(`${rel(file)}: output ${declaredName(output)} exposes secure param ${n.text}`);
          }
        });
      }
    }
    expect(problems).toEqual([]);
    const mainParams = paramsOf(join(infraDir, "main.bicep"));
    expect(
      mainParams
        .filter((p) => p.secure)
        .map((p) => p.name)
        .sort(),
    ).toEqual(["bootstrapClientSecret", "jwtSigningKey", "sqlAdministratorPassword", "webhookSecretKey"]);
  });

  it("never lists keys", () => {
    const problems: string[] = [];
    for (const file of files) {
      if (/listKeys\s*\(/i.test(source(file))) problems.push(`${rel(file)}: listKeys(`);
      // Any list* call (listKeys, listSecrets, listConnectionStrings, listAccountSas, ...).
      walk(root(file), (n) => {
        if (n.type !== "call_expression") return;
        const fn = n.childForFieldName("function");
        const name = fn?.type === "member_expression" ? fn.childForFieldName("property")?.text : fn?.text;
        if (name && /^list/i.test(name)) {
          problems.push(`${rel(file)}:${n.startPosition.row + 1}: calls ${name}()`);
        }
      });
    }
    expect(problems).toEqual([]);
  });

  it("labels every role GUID with the role's name and grants no Owner or Contributor role", () => {
    const guid = /'([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})'/i;
    const forbidden = new Map([
      ["8e3af657-a8ff-443c-a75c-2fe8c4bcb635", "Owner"],
      ["b24988ac-6180-42a0-ab88-20f7382dd24c", "Contributor"],
      ["090c5cfd-751d-490a-894a-3ce6f1109419", "Azure Service Bus Data Owner"],
      ["b7e6dc6d-f1e8-4753-8033-0f276bb0955b", "Storage Blob Data Owner"],
    ]);
    const problems: string[] = [];
    const seen: string[] = [];
    for (const file of files) {
      source(file)
        .split("\n")
        .forEach((line, i) => {
          const match = guid.exec(line);
          if (!match?.[1]) return;
          seen.push(match[1].toLowerCase());
          if (!/\/\/\s*\S/.test(line.slice(match.index))) {
            problems.push(`${rel(file)}:${i + 1}: role GUID ${match[1]} has no // role-name comment`);
          }
          const bad = forbidden.get(match[1].toLowerCase());
          if (bad) problems.push(`${rel(file)}:${i + 1}: grants ${bad}`);
        });
    }
    expect(problems).toEqual([]);
    expect(seen).toEqual(
      expect.arrayContaining([
        "ba92f5b4-2d11-453d-a403-e96b0029c9fe", // Storage Blob Data Contributor
        "974c5e8b-45b9-4653-ba55-5f855dd0fb88", // Storage Queue Data Contributor
        "69a216fc-b8fb-44d8-bc22-1f3c2cd27a39", // Azure Service Bus Data Sender
        "4f6d3b9b-027b-4f4c-9142-0e5a2a2247e0", // Azure Service Bus Data Receiver
        "4633458b-17de-408a-b874-0445c86b69e6", // Key Vault Secrets User
        "3913510d-42f4-4e42-8a64-420c390055eb", // Monitoring Metrics Publisher
        "00000000-0000-0000-0000-000000000002", // Cosmos DB Built-in Data Contributor
      ]),
    );
  });

  it("lets the identity manage the storage account's SFTP local users, and nothing more, on that account only", () => {
    const roles = stripComments(source(join(infraDir, "modules", "roles.bicep")));
    const storage = stripComments(source(join(infraDir, "modules", "storage.bicep")));
    // SFTP needs the hierarchical namespace (set only when the account is created) and local users.
    expect(storage).toMatch(/isHnsEnabled:\s*true/);
    expect(storage).toMatch(/isSftpEnabled:\s*true/);
    expect(storage).toMatch(/isLocalUserEnabled:\s*true/);
    // A custom role whose only actions are on local users (no wildcard beyond them, no key listing).
    const definition =
      /resource sftpLocalUsersRole 'Microsoft\.Authorization\/roleDefinitions@[\d-]+' = \{[\s\S]*?\n\}/.exec(
        roles,
      )?.[0] ?? "";
    expect(definition).toMatch(/type:\s*'CustomRole'/);
    const actions = [
      ...(/var sftpLocalUserActions = \[([\s\S]*?)\]/.exec(roles)?.[1] ?? "").matchAll(/'([^']+)'/g),
    ].map((m) => m[1]);
    expect(actions).toEqual([
      "Microsoft.Storage/storageAccounts/localusers/read",
      "Microsoft.Storage/storageAccounts/localusers/write",
      "Microsoft.Storage/storageAccounts/localusers/delete",
      "Microsoft.Storage/storageAccounts/localusers/regeneratePassword/action",
    ]);
    // Assigned to the app's identity on the storage account, not the group or subscription.
    const assignment =
      /resource sftpLocalUsersAssignment 'Microsoft\.Authorization\/roleAssignments@[\d-]+' = \{[\s\S]*?\n\}/.exec(
        roles,
      )?.[0] ?? "";
    expect(assignment).toMatch(/scope:\s*storage\n/);
    expect(assignment).toMatch(/roleDefinitionId:\s*sftpLocalUsersRole\.id/);
    expect(assignment).toMatch(/principalId:\s*principalId/);
  });

  it("uses GA API versions in fully qualified resource types", () => {
    const problems: string[] = [];
    for (const file of files) {
      for (const resource of declarations(file, "resource_declaration")) {
        const type = literal(resource.namedChildren.find((c) => c.type === "string")) ?? "";
        if (!/^Microsoft\.[A-Za-z]+(\/[A-Za-z]+)+@\d{4}-\d{2}-\d{2}$/.test(type)) {
          problems.push(`${rel(file)}: resource ${declaredName(resource)} has type '${type}'`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it("turns off shared keys and local auth", () => {
    const all = files.map((f) => stripComments(source(f))).join("\n");
    expect(all).toMatch(/allowSharedKeyAccess:\s*false/);
    expect(all).toMatch(/allowBlobPublicAccess:\s*false/);
    expect(all).toMatch(/isHnsEnabled:\s*true/);
    expect(all).toMatch(/isSftpEnabled:\s*true/);
    expect(all.match(/disableLocalAuth:\s*true/g)?.length).toBeGreaterThanOrEqual(2); // Cosmos DB, Service Bus
    expect(all).toMatch(/EnableServerless/);
    expect(all).toMatch(/enablePurgeProtection:\s*true/);
    expect(all).toMatch(/enableRbacAuthorization:\s*true/);
    expect(all).not.toMatch(/AccountKey=|SharedAccessKey=/);
  });

  it("creates the Cosmos DB containers with the partition keys the code queries by", () => {
    const cosmos = stripComments(source(join(infraDir, "modules", "cosmos.bicep")));
    const containers = [...cosmos.matchAll(/name:\s*'([A-Za-z]+)'\s*partitionKey:\s*'([^']+)'/g)].map(
      (m) => `${m[1]} ${m[2]}`,
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
        "events /id",
        "deliveries /webhookId",
        "counters /key",
        "runs /ownerId",
        "leases /id",
      ].sort(),
    );
  });

  it("deploys the read-only SQL replica on the Enterprise plan only: a logical server (Entra administrator from parameters, SQL logins kept on, TLS 1.2, firewall rules from a parameter) and its analytics database; the app reaches it and the change feed as its identity", () => {
    const main = stripComments(source(join(infraDir, "main.bicep")));
    expect(main).toMatch(/param plan string = 'standard'/);
    expect(main).toMatch(/var replicaEnabled = plan == 'enterprise'/);
    expect(main).toMatch(/module sql 'modules\/sql\.bicep' = if \(replicaEnabled\)/);
    expect(main).toMatch(/entraAdminObjectId: sqlEntraAdminObjectId/);
    expect(main).toMatch(/firewallRules: sqlFirewallRules/);
    expect(main).toMatch(/databaseName: 'analytics'/);
    const sql = stripComments(source(join(infraDir, "modules", "sql.bicep")));
    expect(sql).toMatch(/azureADOnlyAuthentication:\s*false/);
    expect(sql).toMatch(/minimalTlsVersion:\s*'1\.2'/);
    expect(sql).toMatch(/administratorType:\s*'ActiveDirectory'/);
    expect(sql).toMatch(/sid:\s*entraAdminObjectId/);
    expect(sql).toMatch(/for rule in firewallRules/);
    expect(sql).toMatch(/Microsoft\.Sql\/servers\/databases@/);
    // The SQL administrator password is a secure parameter, kept in Key Vault, never an output.
    expect(
      paramsOf(join(infraDir, "modules", "sql.bicep")).find((p) => p.name === "administratorPassword")?.secure,
    ).toBe(true);
    const settings = appSettings();
    expect(literal(settings.get("REPLICA_ENGINE"))).toBe("sqlserver");
    expect(literal(settings.get("REPLICA_PORT"))).toBe("1433");
    expect(settings.get("ORGANISATION_PLAN")?.text).toBe("organisationPlan");
    expect(literal(settings.get("COSMOS__credential"))).toBe("managedidentity");
    expect(settings.get("COSMOS__clientId")?.text).toBe("identityClientId");
    // The triggers name the connection whose settings these are, and the leases container Bicep makes.
    const trigger = readFileSync(join(repoRoot, "shared", "triggers", "replica-trigger.ts"), "utf8");
    expect(trigger).toMatch(/connection: "COSMOS"/);
    expect(trigger).toMatch(/leaseContainerName: "leases"/);
    expect(stripComments(source(join(infraDir, "modules", "cosmos.bicep")))).toMatch(
      /name: 'leases'\s*partitionKey: '\/id'/,
    );
    // The hook that makes the app's identity a database user reads these outputs.
    for (const output of [
      "replicaEnabled",
      "sqlServerName",
      "sqlServerFqdn",
      "replicaDatabaseName",
      "managedIdentityName",
      "managedIdentityPrincipalId",
    ]) {
      expect(main).toMatch(new RegExp(`output ${output} `));
    }
  });

  it("creates a Service Bus queue for every queue of the message bus and every queue trigger, dead-lettering after maxDeliveryCount", () => {
    const serviceBus = stripComments(source(join(infraDir, "modules", "servicebus.bicep")));
    const declared = [...(/var queueNames = \[([^\]]*)\]/.exec(serviceBus)?.[1] ?? "").matchAll(/'([\w-]+)'/g)].map(
      (m) => m[1],
    );
    expect(declared.sort()).toEqual([...queueNames].sort());
    const functionsDir = join(repoRoot, "functions");
    const triggered = readdirSync(functionsDir)
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
      .flatMap((f) =>
        [
          ...readFileSync(join(functionsDir, f), "utf8").matchAll(
            /registerQueueFunction\("[\w-]+",\s*\{\s*queueName:\s*"([\w-]+)"/g,
          ),
        ].map((m) => m[1]),
      );
    expect(triggered.length).toBeGreaterThan(0);
    for (const queue of triggered) expect(declared, `queue of a trigger: ${queue}`).toContain(queue);
    expect(serviceBus).toMatch(/maxDeliveryCount:\s*maxDeliveryCount/);
  });

  it("sets every app setting the service's config reads, and no COSMOS_KEY", () => {
    const settings = appSettings();
    const required = [
      "COSMOS_ENDPOINT",
      "COSMOS_DATABASE",
      "STORAGE_BLOB_ENDPOINT",
      "STORAGE_QUEUE_ENDPOINT",
      "MESSAGE_BUS",
      "SERVICEBUS_NAMESPACE",
      "SERVICEBUS__fullyQualifiedNamespace",
      "SERVICEBUS__credential",
      "SERVICEBUS__clientId",
      "OUTBOX_RELAY_SCHEDULE",
      "JWT_SIGNING_KEY",
      "JWT_KEY_ID",
      "JWT_ISSUER",
      "JWT_AUDIENCE",
      "BOOTSTRAP_CLIENT_ID",
      "BOOTSTRAP_CLIENT_SECRET",
      "RATE_LIMIT_STANDARD_PER_MINUTE",
      "RATE_LIMIT_STANDARD_PER_DAY",
      "RATE_LIMIT_PREMIUM_PER_MINUTE",
      "RATE_LIMIT_PREMIUM_PER_DAY",
      "APPLICATIONINSIGHTS_CONNECTION_STRING",
      "AZURE_CLIENT_ID",
      "WEBHOOK_ALLOW_PRIVATE_NETWORKS",
      "WEBHOOK_SECRET_KEY",
      "SFTP_LOGINS",
      "STORAGE_ACCOUNT_RESOURCE_ID",
      "SFTP_HOST",
      "SFTP_PORT",
      "AzureWebJobsStorage__accountName",
      "AzureWebJobsStorage__credential",
      "AzureWebJobsStorage__clientId",
      // The replica's change-feed triggers (connection: "COSMOS") and its engine.
      "COSMOS__accountEndpoint",
      "COSMOS__credential",
      "COSMOS__clientId",
      "ORGANISATION_PLAN",
      "REPLICA_ENGINE",
      "REPLICA_HOST",
      "REPLICA_PUBLIC_HOST",
      "REPLICA_PORT",
      "REPLICA_DATABASE",
    ];
    expect([...settings.keys()]).toEqual(expect.arrayContaining(required));
    expect(settings.has("COSMOS_KEY")).toBe(false);
    expect(settings.has("AzureWebJobsStorage")).toBe(false); // a connection string would need a key

    const text = (name: string) => settings.get(name)?.text;
    expect(literal(settings.get("MESSAGE_BUS"))).toBe("service-bus");
    expect(literal(settings.get("WEBHOOK_ALLOW_PRIVATE_NETWORKS"))).toBe("false");
    // Feeds' SFTP logins are the storage account's local users, on its SFTP endpoint (port 22).
    expect(literal(settings.get("SFTP_LOGINS"))).toBe("azure");
    expect(literal(settings.get("SFTP_PORT"))).toBe("22");
    expect(text("STORAGE_ACCOUNT_RESOURCE_ID")).toBe("storageAccountId");
    expect(text("SFTP_HOST")).toBe("sftpHost");
    expect(literal(settings.get("AzureWebJobsStorage__credential"))).toBe("managedidentity");
    // The queue triggers register with connection: "SERVICEBUS"; the host reads SERVICEBUS__*.
    expect(literal(settings.get("SERVICEBUS__credential"))).toBe("managedidentity");
    expect(text("SERVICEBUS__clientId")).toBe("identityClientId");
    expect(text("SERVICEBUS__fullyQualifiedNamespace")).toBe(text("SERVICEBUS_NAMESPACE"));
    expect(text("JWT_SIGNING_KEY")).toMatch(/^'@Microsoft\.KeyVault\(SecretUri=\$\{\w+\}\)'$/);
    expect(text("BOOTSTRAP_CLIENT_SECRET")).toMatch(/^'@Microsoft\.KeyVault\(SecretUri=\$\{\w+\}\)'$/);
    expect(text("WEBHOOK_SECRET_KEY")).toMatch(/^'@Microsoft\.KeyVault\(SecretUri=\$\{\w+\}\)'$/);
    expect(text("JWT_ISSUER")).toMatch(/^'https:\/\/\$\{.*defaultHostName\}'$/);

    // Every setting outside the required list must be one the service's config, the host or the SDKs read.
    const configKeys = Object.keys(configSchema.shape);
    const extra = [...settings.keys()].filter((k) => !required.includes(k) && !configKeys.includes(k));
    for (const name of extra) {
      expect(name).toMatch(/^(APPLICATIONINSIGHTS_AUTHENTICATION_STRING)$/);
    }
  });

  it("gives customers a module granting the service Storage Blob Data Reader on one container of theirs, and the principal id it needs", () => {
    const reader = stripComments(source(join(infraDir, "customer", "blob-source-reader.bicep")));
    expect(paramsOf(join(infraDir, "customer", "blob-source-reader.bicep")).map((p) => p.name)).toEqual([
      "storageAccountName",
      "containerName",
      "principalId",
    ]);
    expect(reader).toMatch(/'2a2b9908-6ea1-4ae2-8e65-a410df84e7d1'/); // Storage Blob Data Reader, and no other role
    expect(reader.match(/roleAssignments@/g)).toHaveLength(1);
    expect(reader).toMatch(/scope:\s*container\b/);
    expect(stripComments(source(join(infraDir, "main.bicep")))).toMatch(
      /output managedIdentityPrincipalId string = identity\.outputs\.principalId/,
    );
  });

  it("keeps secrets out of main.parameters.json: secure parameters come from the azd environment, never as values", () => {
    const parameters = JSON.parse(readFileSync(join(infraDir, "main.parameters.json"), "utf8")) as {
      parameters: Record<string, { value: unknown }>;
    };
    const mainParams = paramsOf(join(infraDir, "main.bicep"));
    for (const [name, { value }] of Object.entries(parameters.parameters)) {
      const param = mainParams.find((p) => p.name === name);
      expect(param, `main.parameters.json sets unknown parameter ${name}`).toBeDefined();
      if (param?.secure === true) expect(value, `secure parameter ${name}`).toMatch(/^\$\{[A-Z_]+\}$/);
    }
    // Every secure parameter is supplied: azd would otherwise prompt for it.
    for (const secure of mainParams.filter((p) => p.secure))
      expect(Object.keys(parameters.parameters)).toContain(secure.name);
    expect(parameters.parameters.environmentName?.value).toBe("${AZURE_ENV_NAME}");
    expect(parameters.parameters.location?.value).toBe("${AZURE_LOCATION}");
  });
});
