/**
 * The Azure SFTP logins adapter against a local HTTPS server standing in for Azure Resource Manager.
 * ARM itself cannot run here (no emulator exists for the management plane), so these tests pin what
 * the adapter sends — paths, api-version, bodies, the bearer token — and how it reads the answers.
 * The stand-in is HTTPS because the SDK refuses to send a bearer token over plain HTTP.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AzureSftpLogins, localUserNameOf, parseStorageAccountId } from "../shared/adapters/arm/azure-sftp-logins";
import { LocalSftpLogins } from "../shared/adapters/local-sftp-logins";
import { Composition } from "../shared/composition";
import { parseConfig } from "../shared/config";
import { AppError } from "../shared/domain/errors";
import { Logger } from "../shared/logging";

const ACCOUNT_ID = "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg-ids/providers/Microsoft.Storage/storageAccounts/stidsfiles";
const USERS = "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg-ids/providers/Microsoft.Storage/storageAccounts/stidsfiles/localUsers";
const FEED = "fd_0123456789abcdef01";
const USER = "feed0123456789abcdef01";
const ENDPOINT = { host: "stidsfiles.blob.core.windows.net", port: 22 };
const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHkx3XJ3N9lq0nV0Yp3o6n2xk1z5dEJm0b6i1hQm8c7T";

/** A token credential that always answers the same token, and counts the scopes asked for. */
const staticToken: TokenCredential & { scopes: string[] } = {
  scopes: [],
  async getToken(scopes: string | string[]): Promise<AccessToken> {
    staticToken.scopes.push(...(Array.isArray(scopes) ? scopes : [scopes]));
    return { token: "test-token", expiresOnTimestamp: Date.now() + 3_600_000 };
  },
};

interface Seen {
  method: string;
  path: string;
  apiVersion: string | null;
  authorization: string | undefined;
  body: unknown;
}

describe("Azure SFTP logins (storage local users through ARM, against a stand-in)", () => {
  let dir: string;
  let server: Server;
  let cert: Buffer;
  let base: string;
  let seen: Seen[] = [];
  /** What the stand-in answers next, by method, first in first out (then the defaults). */
  let answers: Partial<Record<string, { status: number; body?: unknown }[]>> = {};
  const logLines: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ids-arm-"));
    execFileSync("openssl", [
      "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
      "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
    ], { stdio: "ignore" });
    cert = readFileSync(join(dir, "cert.pem"));
    server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "https://127.0.0.1");
        const text = Buffer.concat(chunks).toString("utf8");
        seen.push({ method: req.method ?? "", path: url.pathname, apiVersion: url.searchParams.get("api-version"), authorization: req.headers.authorization, body: text === "" ? undefined : JSON.parse(text) });
        const answer = answers[req.method ?? ""]?.shift() ?? defaultAnswer(req.method ?? "", url.pathname, text);
        res.writeHead(answer.status, { "Content-Type": "application/json" });
        res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `https://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen = [];
    answers = {};
  });

  /** ARM's answers: a PUT echoes the user; regeneratePassword gives a generated password; DELETE 200. */
  function defaultAnswer(method: string, path: string, text: string): { status: number; body?: unknown } {
    if (method === "PUT") {
      const sent = JSON.parse(text) as { properties: Record<string, unknown> };
      return { status: 200, body: { id: path, name: path.split("/").pop(), type: "Microsoft.Storage/storageAccounts/localUsers", properties: { ...sent.properties, sid: "S-1-2-3", userId: 1001 } } };
    }
    if (method === "POST") return { status: 200, body: { sshPassword: "Azure-Generated-Password-1" } };
    return { status: 200 };
  }

  /** Home folders asked for (the blob side is BlobFileStore.createFolder, tested against Azurite in feeds-resume). */
  const homes = {
    created: [] as string[],
    async createFolder(container: string, name: string): Promise<void> {
      homes.created.push(`${container}/${name}`);
      seen.push({ method: "FOLDER", path: `${container}/${name}`, apiVersion: null, authorization: undefined, body: undefined });
    },
  };
  const logins = (): AzureSftpLogins =>
    new AzureSftpLogins(staticToken, ACCOUNT_ID, ENDPOINT, homes, new Logger("info", (_level, line) => logLines.push(line)), {
      endpoint: base,
      tlsOptions: { ca: cert },
      retryOptions: { maxRetries: 0 },
    });

  const userBody = (keys: { key: string; description: string }[]) => ({
    properties: {
      homeDirectory: `inbound/${FEED}`,
      permissionScopes: [{ permissions: "rcwdl", service: "blob", resourceName: "inbound" }],
      hasSshPassword: true,
      hasSshKey: keys.length > 0,
      hasSharedKey: false,
      sshAuthorizedKeys: keys,
    },
  });

  it("names local users as Azure allows (lowercase letters and digits) and reads the account's resource id", () => {
    expect(localUserNameOf(FEED)).toBe(USER);
    expect(parseStorageAccountId(ACCOUNT_ID)).toEqual({ subscriptionId: "00000000-1111-2222-3333-444444444444", resourceGroup: "rg-ids", accountName: "stidsfiles" });
    expect(() => parseStorageAccountId("/subscriptions/x/resourceGroups/y")).toThrow(/not a storage account resource id/);
    expect(() => localUserNameOf("fd_UPPER-case")).toThrow(/no valid local user name/);
  });

  it("SFTP_LOGINS selects the adapter; azure needs the storage account's resource id", () => {
    const env = { COSMOS_ENDPOINT: "https://cosmos.example", JWT_SIGNING_KEY: Buffer.alloc(32, 1).toString("base64"), WEBHOOK_SECRET_KEY: Buffer.alloc(32, 2).toString("base64") };
    expect(new Composition(parseConfig(env)).sftpLogins()).toBeInstanceOf(LocalSftpLogins);
    expect(() => parseConfig({ ...env, SFTP_LOGINS: "azure" })).toThrow(/STORAGE_ACCOUNT_RESOURCE_ID: is required when SFTP_LOGINS=azure/);
    expect(() => parseConfig({ ...env, SFTP_LOGINS: "azure", STORAGE_ACCOUNT_RESOURCE_ID: "stidsfiles" })).toThrow(/STORAGE_ACCOUNT_RESOURCE_ID: must be a storage account's resource id/);
    const azure = new Composition(
      parseConfig({ ...env, SFTP_LOGINS: "azure", STORAGE_ACCOUNT_RESOURCE_ID: ACCOUNT_ID, SFTP_HOST: ENDPOINT.host, SFTP_PORT: "22", STORAGE_BLOB_ENDPOINT: "https://stidsfiles.blob.core.windows.net/" }),
    ).sftpLogins();
    expect(azure).toBeInstanceOf(AzureSftpLogins);
    expect(azure.endpoint).toEqual(ENDPOINT);
  });

  it("create: PUTs the local user (home inbound/<feedId>, rcwdl on inbound, password on), then has Azure generate the password", async () => {
    const issued = await logins().create(FEED);
    expect(issued).toEqual({ login: { username: `stidsfiles.${USER}`, publicKeys: [] }, password: "Azure-Generated-Password-1" });
    // The home directory first (where the login lands), then the user, then its password.
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ["POST", `${USERS}/${USER}/regeneratePassword`],
    ]);
    for (const request of seen.filter((s) => s.method !== "FOLDER")) {
      expect(request.apiVersion).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(request.authorization).toBe("Bearer test-token");
    }
    expect(seen[1]?.body).toEqual(userBody([]));
    expect(seen[2]?.body).toBeUndefined();
    expect(staticToken.scopes).toContain("https://management.azure.com/.default");
  });

  it("setPublicKeys: PUTs the whole user again with the keys as Azure takes them ('type data', comment as description)", async () => {
    const login = await logins().setPublicKeys(FEED, { username: `stidsfiles.${USER}`, publicKeys: [] }, [`${KEY} alice@laptop`, KEY]);
    expect(login).toEqual({ username: `stidsfiles.${USER}`, publicKeys: [`${KEY} alice@laptop`, KEY] });
    expect(seen.map((s) => [s.method, s.path])).toEqual([["PUT", `${USERS}/${USER}`]]);
    expect(seen[0]?.body).toEqual(userBody([{ key: KEY, description: "alice@laptop" }, { key: KEY, description: "key 2" }]));
  });

  it("rotatePassword: asks Azure for a new password; a user removed outside the service is created again first", async () => {
    const current = { username: `stidsfiles.${USER}`, publicKeys: [KEY] };
    expect(await logins().rotatePassword(FEED, current)).toEqual({ login: current, password: "Azure-Generated-Password-1" });
    expect(seen.map((s) => [s.method, s.path])).toEqual([["POST", `${USERS}/${USER}/regeneratePassword`]]);

    // The first regeneratePassword finds no user (404); the adapter PUTs it again and asks once more.
    seen = [];
    answers = { POST: [{ status: 404, body: { error: { code: "ResourceNotFound", message: "The local user was not found." } } }] };
    expect(await logins().rotatePassword(FEED, current)).toEqual({ login: current, password: "Azure-Generated-Password-1" });
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["POST", `${USERS}/${USER}/regeneratePassword`],
      ["PUT", `${USERS}/${USER}`],
      ["POST", `${USERS}/${USER}/regeneratePassword`],
    ]);
    expect(seen[1]?.body).toEqual(userBody([{ key: KEY, description: "key 1" }]));
  });

  it("delete: DELETEs the local user; one already gone (404) is fine", async () => {
    await logins().delete(FEED);
    answers = { DELETE: [{ status: 404, body: { error: { code: "ResourceNotFound", message: "not found" } } }] };
    await logins().delete(FEED);
    expect(seen.map((s) => [s.method, s.path, s.apiVersion !== null])).toEqual([
      ["DELETE", `${USERS}/${USER}`, true],
      ["DELETE", `${USERS}/${USER}`, true],
    ]);
  });

  it("an ARM refusal (403: the identity lacks the role) is a 503 AppError, logged with its status and code, never a password", async () => {
    answers.PUT = [{ status: 403, body: { error: { code: "AuthorizationFailed", message: "The client does not have authorization to perform action 'Microsoft.Storage/storageAccounts/localUsers/write'." } } }];
    logLines.length = 0;
    const error = await logins().create(FEED).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).message).toBe("The feed's SFTP login could not be changed in the storage account; try again");
    expect(seen.map((s) => s.method)).toEqual(["FOLDER", "PUT"]);
    expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({ level: "warn", message: "storage local user operation failed", operation: "createOrUpdate", feedId: FEED, status: 403, code: "AuthorizationFailed" }),
    ]);

    // No password from Azure: the user just created is deleted again, and the create fails.
    seen = [];
    answers = { POST: [{ status: 200, body: {} }] };
    const none = await logins().create(FEED).catch((e: unknown) => e);
    expect((none as AppError).message).toBe("The storage account issued no SFTP password; try again");
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ["POST", `${USERS}/${USER}/regeneratePassword`],
      ["DELETE", `${USERS}/${USER}`],
    ]);
  });
});
