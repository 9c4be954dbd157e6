import type { TokenCredential } from "@azure/core-auth";
import { Client as SshClient, type SFTPWrapper, type Stats } from "ssh2";
import type * as ArmStorage from "@azure/arm-storage";
import type { LocalUser, StorageManagementClient, StorageManagementClientOptionalParams } from "@azure/arm-storage";
import { AppError } from "../../domain/errors";
import type { SftpEndpoint } from "../../domain/feed";
import type { Logger } from "../../logging";
import type { IssuedSftpLogin, SftpLogins, StoredSftpLogin } from "../../ports/sftp-logins";
import { ed25519KeyPair } from "../sftp/ssh-key-pair";

/** The container every feed's home lies in. */
const INBOUND = "inbound";
/**
 * What the short-lived grant user may do on the `inbound` container: list (to stat its way around),
 * change owners and change permissions. It lives only while it hands a feed its home directory.
 */
const GRANT_PERMISSIONS = "lop";
/** The home directory's mode once granted: its owner (the feed's local user) everything, nobody else anything. */
const HOME_MODE = 0o700;
/** Execute for all other users: local users may traverse the container root to their home, not list it. */
const OTHERS_TRAVERSE = 0o001;

/** Creates a login's home directory in the storage account (a directory of the hierarchical namespace). */
export interface SftpHomes {
  createFolder(container: string, name: string): Promise<void>;
}

/** A storage account named by its Azure resource id. */
export interface StorageAccountRef {
  subscriptionId: string;
  resourceGroup: string;
  accountName: string;
}

const ACCOUNT_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Storage\/storageAccounts\/([a-z0-9]{3,24})$/i;

/** `/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Storage/storageAccounts/<name>` → its parts. */
export function parseStorageAccountId(id: string): StorageAccountRef {
  const m = ACCOUNT_ID.exec(id.trim());
  if (m === null) throw new Error(`not a storage account resource id: ${JSON.stringify(id)}`);
  return { subscriptionId: m[1] ?? "", resourceGroup: m[2] ?? "", accountName: (m[3] ?? "").toLowerCase() };
}

/** The short-lived local user that hands a feed's home directory to the feed's local user (`adm<hex>`). */
export function grantUserNameOf(feedId: string): string {
  return `adm${localUserNameOf(feedId).slice("feed".length)}`;
}

/**
 * The local user of a feed. Azure allows lowercase letters and digits only, 3 to 64 characters, unique
 * within the account: `fd_<hex>` gives `feed<hex>`.
 */
export function localUserNameOf(feedId: string): string {
  const name = `feed${feedId.replace(/^fd_/, "")}`;
  if (!/^[a-z0-9]{3,64}$/.test(name))
    throw new Error(`feed id ${JSON.stringify(feedId)} gives no valid local user name`);
  return name;
}

/** An OpenSSH line `type base64 [comment]` as Azure takes it: `{ key: "type base64", description }`. */
function sshKeyOf(line: string, index: number): { key: string; description: string } {
  const [type = "", data = "", ...comment] = line.trim().split(/\s+/);
  const description = comment
    .join(" ")
    .replace(/[^\x20-\x7e]/g, "")
    .slice(0, 64);
  return { key: `${type} ${data}`, description: description === "" ? `key ${index + 1}` : description };
}

const statusOf = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && typeof (error as { statusCode?: unknown }).statusCode === "number"
    ? (error as { statusCode: number }).statusCode
    : undefined;

/** How the SFTP session that hands a home over connects to the account's SFTP endpoint. */
export interface SftpConnectOptions {
  /** How long connecting may take, in milliseconds. */
  readyTimeout?: number;
}

/**
 * Feed logins as local users of the storage account whose SFTP endpoint providers connect to (Azure
 * Resource Manager, `Microsoft.Storage/storageAccounts/localUsers`, with the function app's managed
 * identity). Each user's home is `inbound/<feedId>`; Azure generates and keeps the password, so
 * nothing of it is stored here. The username providers type is `<account>.<localUser>`.
 *
 * Isolation: a feed's local user has no container permission at all, only ACL authorization, and it
 * owns its home directory (mode 700); every other directory of the container gives "other users"
 * nothing beyond traversing the root. Azure evaluates container permissions first and ACLs only when
 * those do not suffice, authorizes local users by the owning user, owning group and "other" entries
 * only (named users are not supported), and lets only a local user set a local user's id as an owner
 * (no Azure SDK can). So the home is handed over over SFTP by a short-lived local user `adm<hex>`
 * (modify ownership and permissions on `inbound`, an SSH key generated for this one session, deleted
 * right after): `chown <userId>` and `chmod 700` on the home, and execute for others on the root.
 */
export class AzureSftpLogins implements SftpLogins {
  private readonly account: StorageAccountRef;
  private readonly client: StorageManagementClient;

  constructor(
    credential: TokenCredential,
    storageAccountId: string,
    readonly endpoint: SftpEndpoint,
    private readonly homes: SftpHomes,
    private readonly log: Logger,
    clientOptions: StorageManagementClientOptionalParams = {},
    private readonly connect: SftpConnectOptions = {},
  ) {
    this.account = parseStorageAccountId(storageAccountId);
    // The ARM SDK is loaded when this adapter is made (Azure only), not with the composition that imports it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { StorageManagementClient: Client } = require("@azure/arm-storage") as typeof ArmStorage;
    this.client = new Client(credential, this.account.subscriptionId, clientOptions);
  }

  async create(feedId: string): Promise<IssuedSftpLogin> {
    // The home is where a login lands: it exists before the user does.
    await this.homes.createFolder(INBOUND, feedId);
    const saved = await this.put(feedId, []);
    try {
      await this.grantHome(feedId, this.userIdOf(feedId, saved));
      return { login: this.stored(feedId, []), password: await this.regenerate(feedId) };
    } catch (error) {
      // No user left behind that has no home or that nobody has a password for (the feed is not created either).
      await this.delete(feedId).catch(() => undefined);
      throw error;
    }
  }

  async rotatePassword(feedId: string, current: StoredSftpLogin): Promise<IssuedSftpLogin> {
    // The user is PUT whole again first: one removed outside the service is created again (keys and
    // all, with a new user id), and one created with a container permission loses it; either way its
    // home is handed to it (again) before the new password exists.
    await this.putAndGrant(feedId, current.publicKeys);
    return { login: this.stored(feedId, current.publicKeys), password: await this.regenerate(feedId) };
  }

  async setPublicKeys(feedId: string, _current: StoredSftpLogin, publicKeys: string[]): Promise<StoredSftpLogin> {
    await this.putAndGrant(feedId, publicKeys);
    return this.stored(feedId, publicKeys);
  }

  /** A failure after the PUT is a 503: trying again PUTs and hands the home over again (both idempotent). */
  private async putAndGrant(feedId: string, publicKeys: string[]): Promise<void> {
    await this.grantHome(feedId, this.userIdOf(feedId, await this.put(feedId, publicKeys)));
  }

  async delete(feedId: string): Promise<void> {
    await this.call("delete", feedId, () => this.deleteUser(localUserNameOf(feedId)));
  }

  private async deleteUser(name: string): Promise<void> {
    try {
      await this.client.localUsers.delete(this.account.resourceGroup, this.account.accountName, name);
    } catch (error) {
      if (statusOf(error) !== 404) throw error;
    }
  }

  private stored(feedId: string, publicKeys: string[]): StoredSftpLogin {
    return { username: `${this.account.accountName}.${localUserNameOf(feedId)}`, publicKeys };
  }

  /**
   * Creates or replaces the user whole (a PUT): home, no container permission (ACL authorization
   * only), password on, the given keys. Answers the user as Azure saved it.
   */
  private async put(feedId: string, publicKeys: string[]): Promise<LocalUser> {
    const user: LocalUser = {
      homeDirectory: `${INBOUND}/${feedId}`,
      permissionScopes: [],
      allowAclAuthorization: true,
      hasSshPassword: true,
      hasSshKey: publicKeys.length > 0,
      hasSharedKey: false,
      sshAuthorizedKeys: publicKeys.map(sshKeyOf),
    };
    return await this.call("createOrUpdate", feedId, () =>
      this.client.localUsers.createOrUpdate(
        this.account.resourceGroup,
        this.account.accountName,
        localUserNameOf(feedId),
        user,
      ),
    );
  }

  /** The user id Azure assigned (what the home's owner is set to); none is a 503. */
  private userIdOf(feedId: string, saved: LocalUser): number {
    if (typeof saved.userId === "number" && Number.isInteger(saved.userId) && saved.userId >= 0) return saved.userId;
    this.log.warn("storage local user has no user id", { operation: "createOrUpdate", feedId });
    throw new AppError(
      "SERVICE_UNAVAILABLE",
      "The feed's SFTP login could not be changed in the storage account; try again",
    );
  }

  /**
   * Makes the feed's local user the owner of its home (mode 700) and lets other users traverse the
   * container root, through a local user that exists for this session only.
   */
  private async grantHome(feedId: string, userId: number): Promise<void> {
    const name = grantUserNameOf(feedId);
    const keys = ed25519KeyPair();
    const grantUser: LocalUser = {
      homeDirectory: INBOUND,
      permissionScopes: [{ permissions: GRANT_PERMISSIONS, service: "blob", resourceName: INBOUND }],
      hasSshPassword: false,
      hasSshKey: true,
      hasSharedKey: false,
      sshAuthorizedKeys: [{ key: keys.public.trim(), description: "home grant" }],
    };
    await this.call("createOrUpdate", feedId, () =>
      this.client.localUsers.createOrUpdate(this.account.resourceGroup, this.account.accountName, name, grantUser),
    );
    try {
      await this.call("grantHome", feedId, () =>
        this.session(`${this.account.accountName}.${name}`, keys.private, async (sftp) => {
          const root = await sftpStat(sftp, ".");
          if ((root.mode & OTHERS_TRAVERSE) === 0)
            await sftpDo((cb) => sftp.chmod(".", (root.mode & 0o7777) | OTHERS_TRAVERSE, cb));
          const home = await sftpStat(sftp, feedId);
          await sftpDo((cb) => sftp.chown(feedId, userId, home.gid, cb));
          await sftpDo((cb) => sftp.chmod(feedId, HOME_MODE, cb));
        }),
      );
    } finally {
      await this.call("delete", feedId, () => this.deleteUser(name)).catch(() => undefined);
    }
  }

  /** One SFTP session on the account's endpoint with a private key; closed whatever happens. */
  private session(username: string, privateKey: string, work: (sftp: SFTPWrapper) => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const ssh = new SshClient();
      let settled = false;
      const finish = (error?: unknown): void => {
        if (settled) return;
        settled = true;
        ssh.end();
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      };
      ssh.on("error", finish);
      ssh.on("close", () => finish(new Error("the SFTP connection closed")));
      ssh.on("ready", () => {
        ssh.sftp((error, sftp) => {
          if (error !== undefined && error !== null) return finish(error);
          work(sftp).then(() => finish(), finish);
        });
      });
      ssh.connect({
        host: this.endpoint.host,
        port: this.endpoint.port,
        username,
        privateKey,
        readyTimeout: this.connect.readyTimeout ?? 20_000,
      });
    });
  }

  private async regenerate(feedId: string): Promise<string> {
    const result = await this.call("regeneratePassword", feedId, () =>
      this.client.localUsers.regeneratePassword(
        this.account.resourceGroup,
        this.account.accountName,
        localUserNameOf(feedId),
      ),
    );
    if (result.sshPassword === undefined || result.sshPassword === "") {
      throw new AppError("SERVICE_UNAVAILABLE", "The storage account issued no SFTP password; try again");
    }
    return result.sshPassword;
  }

  /** Runs one storage call; a failure is a 503 to the caller (its cause kept, logged without secrets). */
  private async call<T>(operation: string, feedId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof AppError) throw error;
      const status = statusOf(error);
      const rawCode = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
      const code = typeof rawCode === "string" ? rawCode : typeof rawCode === "number" ? String(rawCode) : undefined;
      this.log.warn("storage local user operation failed", { operation, feedId, status, code });
      throw new AppError(
        "SERVICE_UNAVAILABLE",
        "The feed's SFTP login could not be changed in the storage account; try again",
        { cause: error },
      );
    }
  }
}

function sftpDo(op: (cb: (error: Error | null | undefined) => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => op((error) => (error ? reject(error) : resolve())));
}

function sftpStat(sftp: SFTPWrapper, path: string): Promise<Stats> {
  return new Promise<Stats>((resolve, reject) =>
    sftp.stat(path, (error, stats) => (error ? reject(error) : resolve(stats))),
  );
}
