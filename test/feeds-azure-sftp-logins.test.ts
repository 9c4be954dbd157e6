/**
 * The Azure SFTP logins adapter against a local HTTPS server standing in for Azure Resource Manager,
 * and a local SSH server standing in for the storage account's SFTP endpoint. Neither ARM nor the
 * account's SFTP endpoint (with its local users, user ids and ACL authorization) can run here (no
 * emulator exists for either), so these tests pin what the adapter sends — paths, api-version, bodies,
 * the bearer token, the SFTP session's login and its STAT/SETSTAT requests — and how it reads the
 * answers. The ARM stand-in is HTTPS because the SDK refuses to send a bearer token over plain HTTP.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import { Server as SshServer, utils as sshUtils, type Attributes } from "ssh2";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AzureSftpLogins,
  grantUserNameOf,
  localUserNameOf,
  parseStorageAccountId,
} from "../shared/adapters/arm/azure-sftp-logins";
import { publicKeyMatches } from "../local/sftp/public-key";
import { LocalSftpLogins } from "../shared/adapters/sftp/local-sftp-logins";
import { Composition } from "../shared/composition";
import { parseConfig } from "../shared/config";
import { AppError } from "../shared/domain/errors";
import { Logger } from "../shared/logging";
import { ed25519KeyPair } from "../shared/adapters/sftp/ssh-key-pair";

const ACCOUNT_ID =
  "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg-ids/providers/Microsoft.Storage/storageAccounts/stidsfiles";
const USERS =
  "/subscriptions/00000000-1111-2222-3333-444444444444/resourceGroups/rg-ids/providers/Microsoft.Storage/storageAccounts/stidsfiles/localUsers";
const FEED = "fd_0123456789abcdef01";
const USER = "feed0123456789abcdef01";
const GRANT = "adm0123456789abcdef01";
const { STATUS_CODE } = sshUtils.sftp;
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
  let ssh: SshServer;
  let sshPort = 0;
  /** The modes the SFTP stand-in reports: the container root (`.`) and the feed's home. */
  let modes: Record<string, number> = {};
  /** SFTP SETSTAT requests the stand-in refuses (by path). */
  let refuseSetstat: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ids-arm-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    cert = readFileSync(join(dir, "cert.pem"));
    server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "https://127.0.0.1");
        const text = Buffer.concat(chunks).toString("utf8");
        seen.push({
          method: req.method ?? "",
          path: url.pathname,
          apiVersion: url.searchParams.get("api-version"),
          authorization: req.headers.authorization,
          body: text === "" ? undefined : JSON.parse(text),
        });
        const answer = answers[req.method ?? ""]?.shift() ?? defaultAnswer(req.method ?? "", url.pathname, text);
        res.writeHead(answer.status, { "Content-Type": "application/json" });
        res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    base = `https://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;

    // The account's SFTP endpoint: only the grant user, with the key last PUT for it to ARM.
    ssh = new SshServer({ hostKeys: [ed25519KeyPair().private] }, (connection) => {
      let username = "";
      connection.on("error", () => undefined);
      connection.on("authentication", (ctx) => {
        const put = [...seen].reverse().find((s) => s.method === "PUT" && s.path === `${USERS}/${GRANT}`);
        const keys = (
          (put?.body as { properties?: { sshAuthorizedKeys?: { key: string }[] } } | undefined)?.properties
            ?.sshAuthorizedKeys ?? []
        ).map((k) => k.key);
        if (ctx.method === "publickey" && ctx.username === `stidsfiles.${GRANT}` && publicKeyMatches(ctx, keys)) {
          username = ctx.username;
          return ctx.accept();
        }
        ctx.reject(["publickey"]);
      });
      connection.on("ready", () => {
        seen.push({
          method: "SFTP-LOGIN",
          path: username,
          apiVersion: null,
          authorization: undefined,
          body: undefined,
        });
        connection.on("session", (accept) => {
          accept().on("sftp", (acceptSftp) => {
            const sftp = acceptSftp();
            sftp.on("STAT", (reqId: number, path: string) => {
              seen.push({ method: "STAT", path, apiVersion: null, authorization: undefined, body: undefined });
              const mode = modes[path];
              if (mode === undefined) return sftp.status(reqId, STATUS_CODE.NO_SUCH_FILE);
              sftp.attrs(reqId, { mode, uid: 0, gid: 7, size: 0, atime: 0, mtime: 0 });
            });
            sftp.on("SETSTAT", (reqId: number, path: string, attrs: Attributes) => {
              seen.push({ method: "SETSTAT", path, apiVersion: null, authorization: undefined, body: { ...attrs } });
              sftp.status(reqId, refuseSetstat.includes(path) ? STATUS_CODE.PERMISSION_DENIED : STATUS_CODE.OK);
            });
          });
        });
      });
    });
    await new Promise<void>((resolve) => ssh.listen(0, "127.0.0.1", () => resolve()));
    sshPort = (ssh.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => ssh?.close(() => resolve()));
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    seen = [];
    answers = {};
    modes = { ".": 0o40750, [FEED]: 0o40750 };
    refuseSetstat = [];
  });

  /** ARM's answers: a PUT echoes the user; regeneratePassword gives a generated password; DELETE 200. */
  function defaultAnswer(method: string, path: string, text: string): { status: number; body?: unknown } {
    if (method === "PUT") {
      const sent = JSON.parse(text) as { properties: Record<string, unknown> };
      return {
        status: 200,
        body: {
          id: path,
          name: path.split("/").pop(),
          type: "Microsoft.Storage/storageAccounts/localUsers",
          properties: { ...sent.properties, sid: "S-1-2-3", userId: 1001 },
        },
      };
    }
    if (method === "POST") return { status: 200, body: { sshPassword: "Azure-Generated-Password-1" } };
    return { status: 200 };
  }

  /** Home folders asked for (the blob side is BlobFileStore.createFolder, tested against Azurite in feeds-resume). */
  const homes = {
    created: [] as string[],
    async createFolder(container: string, name: string): Promise<void> {
      homes.created.push(`${container}/${name}`);
      seen.push({
        method: "FOLDER",
        path: `${container}/${name}`,
        apiVersion: null,
        authorization: undefined,
        body: undefined,
      });
    },
  };
  const logins = (): AzureSftpLogins =>
    new AzureSftpLogins(
      staticToken,
      ACCOUNT_ID,
      { host: "127.0.0.1", port: sshPort },
      homes,
      new Logger("info", (_level, line) => logLines.push(line)),
      { endpoint: base, tlsOptions: { ca: cert }, retryOptions: { maxRetries: 0 } },
      { readyTimeout: 5_000 },
    );

  const userBody = (keys: { key: string; description: string }[]) => ({
    properties: {
      homeDirectory: `inbound/${FEED}`,
      permissionScopes: [],
      allowAclAuthorization: true,
      hasSshPassword: true,
      hasSshKey: keys.length > 0,
      hasSharedKey: false,
      sshAuthorizedKeys: keys,
    },
  });

  /** Handing the home over: the grant user is PUT, logs in over SFTP, sets owner and modes, and is deleted. */
  const grantSteps = (rootChmod = true): string[][] => [
    ["PUT", `${USERS}/${GRANT}`],
    ["SFTP-LOGIN", `stidsfiles.${GRANT}`],
    ["STAT", "."],
    ...(rootChmod ? [["SETSTAT", "."]] : []),
    ["STAT", FEED],
    ["SETSTAT", FEED],
    ["SETSTAT", FEED],
    ["DELETE", `${USERS}/${GRANT}`],
  ];

  it("names local users as Azure allows (lowercase letters and digits) and reads the account's resource id", () => {
    expect(localUserNameOf(FEED)).toBe(USER);
    expect(grantUserNameOf(FEED)).toBe(GRANT);
    expect(parseStorageAccountId(ACCOUNT_ID)).toEqual({
      subscriptionId: "00000000-1111-2222-3333-444444444444",
      resourceGroup: "rg-ids",
      accountName: "stidsfiles",
    });
    expect(() => parseStorageAccountId("/subscriptions/x/resourceGroups/y")).toThrow(
      /not a storage account resource id/,
    );
    expect(() => localUserNameOf("fd_UPPER-case")).toThrow(/no valid local user name/);
  });

  it("SFTP_LOGINS selects the adapter; azure needs the storage account's resource id", () => {
    const env = {
      COSMOS_ENDPOINT: "https://cosmos.example",
      JWT_SIGNING_KEY: Buffer.alloc(32, 1).toString("base64"),
      WEBHOOK_SECRET_KEY: Buffer.alloc(32, 2).toString("base64"),
    };
    expect(new Composition(parseConfig(env)).feeds.sftpLogins()).toBeInstanceOf(LocalSftpLogins);
    expect(() => parseConfig({ ...env, SFTP_LOGINS: "azure" })).toThrow(
      /STORAGE_ACCOUNT_RESOURCE_ID: is required when SFTP_LOGINS=azure/,
    );
    expect(() => parseConfig({ ...env, SFTP_LOGINS: "azure", STORAGE_ACCOUNT_RESOURCE_ID: "stidsfiles" })).toThrow(
      /STORAGE_ACCOUNT_RESOURCE_ID: must be a storage account's resource id/,
    );
    const azure = new Composition(
      parseConfig({
        ...env,
        SFTP_LOGINS: "azure",
        STORAGE_ACCOUNT_RESOURCE_ID: ACCOUNT_ID,
        SFTP_HOST: ENDPOINT.host,
        SFTP_PORT: "22",
        STORAGE_BLOB_ENDPOINT: "https://stidsfiles.blob.core.windows.net/",
      }),
    ).feeds.sftpLogins();
    expect(azure).toBeInstanceOf(AzureSftpLogins);
    expect(azure.endpoint).toEqual(ENDPOINT);
  });

  it("create: PUTs the local user with no container permission (ACL authorization only), hands it its home over SFTP (owner = its user id, mode 700; others may traverse the root), then has Azure generate the password", async () => {
    const issued = await logins().create(FEED);
    expect(issued).toEqual({
      login: { username: `stidsfiles.${USER}`, publicKeys: [] },
      password: "Azure-Generated-Password-1",
    });
    // The home directory first (where the login lands), then the user, its home handed over, then its password.
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ...grantSteps(),
      ["POST", `${USERS}/${USER}/regeneratePassword`],
    ]);
    for (const request of seen.filter((s) => ["PUT", "POST", "DELETE"].includes(s.method))) {
      expect(request.apiVersion).toMatch(/^\d{4}-\d\d-\d\d$/);
      expect(request.authorization).toBe("Bearer test-token");
    }
    // The feed's user: no permission scope on the container (which Azure would check before any ACL).
    expect(seen[1]?.body).toEqual(userBody([]));
    // The grant user: the whole container's root as home, list + modify ownership + modify permissions, a fresh key, no password.
    expect(seen[2]?.body).toEqual({
      properties: {
        homeDirectory: "inbound",
        permissionScopes: [{ permissions: "lop", service: "blob", resourceName: "inbound" }],
        hasSshPassword: false,
        hasSshKey: true,
        hasSharedKey: false,
        sshAuthorizedKeys: [{ key: expect.stringMatching(/^ssh-ed25519 [A-Za-z0-9+/=]+$/), description: "home grant" }],
      },
    });
    const setstats = seen.filter((s) => s.method === "SETSTAT").map((s) => [s.path, s.body]);
    expect(setstats).toEqual([
      [".", expect.objectContaining({ mode: 0o751, uid: undefined })],
      [FEED, expect.objectContaining({ uid: 1001, gid: 7, mode: undefined })],
      [FEED, expect.objectContaining({ mode: 0o700, uid: undefined })],
    ]);
    expect(seen.at(-1)?.body).toBeUndefined();
    expect(staticToken.scopes).toContain("https://management.azure.com/.default");

    // A root others may already traverse is left as it is; a new key each time.
    const firstKey = JSON.stringify(seen[2]?.body);
    seen = [];
    modes["."] = 0o40751;
    await logins().create(FEED);
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ...grantSteps(false),
      ["POST", `${USERS}/${USER}/regeneratePassword`],
    ]);
    expect(JSON.stringify(seen[2]?.body)).not.toBe(firstKey);
  });

  it("create: when the home cannot be handed over (SFTP refuses the chown) the user is deleted again, the create fails 503, and no password is issued", async () => {
    refuseSetstat = [FEED];
    logLines.length = 0;
    const error = await logins()
      .create(FEED)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).message).toBe(
      "The feed's SFTP login could not be changed in the storage account; try again",
    );
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ["PUT", `${USERS}/${GRANT}`],
      ["SFTP-LOGIN", `stidsfiles.${GRANT}`],
      ["STAT", "."],
      ["SETSTAT", "."],
      ["STAT", FEED],
      ["SETSTAT", FEED],
      ["DELETE", `${USERS}/${GRANT}`],
      ["DELETE", `${USERS}/${USER}`],
    ]);
    expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: "warn",
        message: "storage local user operation failed",
        operation: "grantHome",
        feedId: FEED,
      }),
    ]);
    expect(logLines.join("\n")).not.toMatch(/PRIVATE KEY|Azure-Generated/);

    // A user id missing from ARM's answer: nothing is handed over, the user is deleted again.
    seen = [];
    answers = { PUT: [{ status: 200, body: { properties: { homeDirectory: `inbound/${FEED}` } } }] };
    const noId = await logins()
      .create(FEED)
      .catch((e: unknown) => e);
    expect((noId as AppError).status).toBe(503);
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ["DELETE", `${USERS}/${USER}`],
    ]);
  });

  it("setPublicKeys: PUTs the whole user again with the keys as Azure takes them ('type data', comment as description), and hands its home over again", async () => {
    const login = await logins().setPublicKeys(FEED, { username: `stidsfiles.${USER}`, publicKeys: [] }, [
      `${KEY} alice@laptop`,
      KEY,
    ]);
    expect(login).toEqual({ username: `stidsfiles.${USER}`, publicKeys: [`${KEY} alice@laptop`, KEY] });
    expect(seen.map((s) => [s.method, s.path])).toEqual([["PUT", `${USERS}/${USER}`], ...grantSteps()]);
    expect(seen[0]?.body).toEqual(
      userBody([
        { key: KEY, description: "alice@laptop" },
        { key: KEY, description: "key 2" },
      ]),
    );
    expect(seen.filter((s) => s.method === "SETSTAT" && s.path === FEED).map((s) => s.body)).toEqual([
      expect.objectContaining({ uid: 1001, gid: 7 }),
      expect.objectContaining({ mode: 0o700 }),
    ]);
  });

  it("rotatePassword: PUTs the user again (created again if removed outside the service; a container permission of an older login dropped), hands its home over, then asks Azure for a new password", async () => {
    const current = { username: `stidsfiles.${USER}`, publicKeys: [KEY] };
    expect(await logins().rotatePassword(FEED, current)).toEqual({
      login: current,
      password: "Azure-Generated-Password-1",
    });
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["PUT", `${USERS}/${USER}`],
      ...grantSteps(),
      ["POST", `${USERS}/${USER}/regeneratePassword`],
    ]);
    expect(seen[0]?.body).toEqual(userBody([{ key: KEY, description: "key 1" }]));

    // The user created again gets a new user id from Azure: the home's owner follows it.
    seen = [];
    answers = {
      PUT: [
        {
          status: 200,
          body: { properties: { ...userBody([{ key: KEY, description: "key 1" }]).properties, userId: 1002 } },
        },
      ],
    };
    await logins().rotatePassword(FEED, current);
    expect(seen.filter((s) => s.method === "SETSTAT" && s.path === FEED).map((s) => s.body)).toEqual([
      expect.objectContaining({ uid: 1002, gid: 7 }),
      expect.objectContaining({ mode: 0o700 }),
    ]);
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
    answers.PUT = [
      {
        status: 403,
        body: {
          error: {
            code: "AuthorizationFailed",
            message:
              "The client does not have authorization to perform action 'Microsoft.Storage/storageAccounts/localUsers/write'.",
          },
        },
      },
    ];
    logLines.length = 0;
    const error = await logins()
      .create(FEED)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(503);
    expect((error as AppError).message).toBe(
      "The feed's SFTP login could not be changed in the storage account; try again",
    );
    expect(seen.map((s) => s.method)).toEqual(["FOLDER", "PUT"]);
    expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>)).toEqual([
      expect.objectContaining({
        level: "warn",
        message: "storage local user operation failed",
        operation: "createOrUpdate",
        feedId: FEED,
        status: 403,
        code: "AuthorizationFailed",
      }),
    ]);

    // No password from Azure: the user just created is deleted again, and the create fails.
    seen = [];
    answers = { POST: [{ status: 200, body: {} }] };
    const none = await logins()
      .create(FEED)
      .catch((e: unknown) => e);
    expect((none as AppError).message).toBe("The storage account issued no SFTP password; try again");
    expect(seen.map((s) => [s.method, s.path])).toEqual([
      ["FOLDER", `inbound/${FEED}`],
      ["PUT", `${USERS}/${USER}`],
      ...grantSteps(),
      ["POST", `${USERS}/${USER}/regeneratePassword`],
      ["DELETE", `${USERS}/${USER}`],
    ]);
  });
});
