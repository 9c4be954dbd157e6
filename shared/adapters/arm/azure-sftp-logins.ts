import type { TokenCredential } from "@azure/core-auth";
import { StorageManagementClient, type LocalUser, type StorageManagementClientOptionalParams } from "@azure/arm-storage";
import { AppError } from "../../domain/errors";
import type { SftpEndpoint } from "../../domain/feed";
import type { Logger } from "../../logging";
import type { IssuedSftpLogin, SftpLogins, StoredSftpLogin } from "../../ports/sftp-logins";

/** The container every feed's home lies in. */
const INBOUND = "inbound";
/** Read, create, write, delete and list: what a provider does in its inbox (no ownership or ACL changes). */
const PERMISSIONS = "rcwdl";

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

const ACCOUNT_ID = /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Storage\/storageAccounts\/([a-z0-9]{3,24})$/i;

/** `/subscriptions/<id>/resourceGroups/<rg>/providers/Microsoft.Storage/storageAccounts/<name>` → its parts. */
export function parseStorageAccountId(id: string): StorageAccountRef {
  const m = ACCOUNT_ID.exec(id.trim());
  if (m === null) throw new Error(`not a storage account resource id: ${JSON.stringify(id)}`);
  return { subscriptionId: m[1] ?? "", resourceGroup: m[2] ?? "", accountName: (m[3] ?? "").toLowerCase() };
}

/**
 * The local user of a feed. Azure allows lowercase letters and digits only, 3 to 64 characters, unique
 * within the account: `fd_<hex>` gives `feed<hex>`.
 */
export function localUserNameOf(feedId: string): string {
  const name = `feed${feedId.replace(/^fd_/, "")}`;
  if (!/^[a-z0-9]{3,64}$/.test(name)) throw new Error(`feed id ${JSON.stringify(feedId)} gives no valid local user name`);
  return name;
}

/** An OpenSSH line `type base64 [comment]` as Azure takes it: `{ key: "type base64", description }`. */
function sshKeyOf(line: string, index: number): { key: string; description: string } {
  const [type = "", data = "", ...comment] = line.trim().split(/\s+/);
  const description = comment.join(" ").replace(/[^\x20-\x7e]/g, "").slice(0, 64);
  return { key: `${type} ${data}`, description: description === "" ? `key ${index + 1}` : description };
}

const statusOf = (error: unknown): number | undefined =>
  typeof error === "object" && error !== null && typeof (error as { statusCode?: unknown }).statusCode === "number" ? (error as { statusCode: number }).statusCode : undefined;

/**
 * Feed logins as local users of the storage account whose SFTP endpoint providers connect to (Azure
 * Resource Manager, `Microsoft.Storage/storageAccounts/localUsers`, with the function app's managed
 * identity). Each user's home is `inbound/<feedId>`; Azure generates and keeps the password, so
 * nothing of it is stored here. The username providers type is `<account>.<localUser>`.
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
  ) {
    this.account = parseStorageAccountId(storageAccountId);
    this.client = new StorageManagementClient(credential, this.account.subscriptionId, clientOptions);
  }

  async create(feedId: string): Promise<IssuedSftpLogin> {
    // The home is where a login lands: it exists before the user does.
    await this.homes.createFolder(INBOUND, feedId);
    await this.put(feedId, []);
    try {
      return { login: this.stored(feedId, []), password: await this.regenerate(feedId) };
    } catch (error) {
      // No user left behind that nobody has a password for (the feed is not created either).
      await this.delete(feedId).catch(() => undefined);
      throw error;
    }
  }

  async rotatePassword(feedId: string, current: StoredSftpLogin): Promise<IssuedSftpLogin> {
    // The user may have been removed outside the service: then it is created again, keys and all.
    let password: string;
    try {
      password = await this.regenerate(feedId);
    } catch (error) {
      if (!(error instanceof AppError) || statusOf(error.cause) !== 404) throw error;
      await this.put(feedId, current.publicKeys);
      password = await this.regenerate(feedId);
    }
    return { login: this.stored(feedId, current.publicKeys), password };
  }

  async setPublicKeys(feedId: string, _current: StoredSftpLogin, publicKeys: string[]): Promise<StoredSftpLogin> {
    await this.put(feedId, publicKeys);
    return this.stored(feedId, publicKeys);
  }

  async delete(feedId: string): Promise<void> {
    await this.call("delete", feedId, async () => {
      try {
        await this.client.localUsers.delete(this.account.resourceGroup, this.account.accountName, localUserNameOf(feedId));
      } catch (error) {
        if (statusOf(error) !== 404) throw error;
      }
    });
  }

  private stored(feedId: string, publicKeys: string[]): StoredSftpLogin {
    return { username: `${this.account.accountName}.${localUserNameOf(feedId)}`, publicKeys };
  }

  /** Creates or replaces the user whole (a PUT): home, scope, password on, the given keys. */
  private async put(feedId: string, publicKeys: string[]): Promise<void> {
    const user: LocalUser = {
      homeDirectory: `${INBOUND}/${feedId}`,
      permissionScopes: [{ permissions: PERMISSIONS, service: "blob", resourceName: INBOUND }],
      hasSshPassword: true,
      hasSshKey: publicKeys.length > 0,
      hasSharedKey: false,
      sshAuthorizedKeys: publicKeys.map(sshKeyOf),
    };
    await this.call("createOrUpdate", feedId, () => this.client.localUsers.createOrUpdate(this.account.resourceGroup, this.account.accountName, localUserNameOf(feedId), user));
  }

  private async regenerate(feedId: string): Promise<string> {
    const result = await this.call("regeneratePassword", feedId, () =>
      this.client.localUsers.regeneratePassword(this.account.resourceGroup, this.account.accountName, localUserNameOf(feedId)),
    );
    if (result.sshPassword === undefined || result.sshPassword === "") {
      throw new AppError("SERVICE_UNAVAILABLE", "The storage account issued no SFTP password; try again");
    }
    return result.sshPassword;
  }

  /** Runs one ARM call; a failure is a 503 to the caller (its cause kept, logged without secrets). */
  private async call<T>(operation: string, feedId: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const status = statusOf(error);
      const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
      this.log.warn("storage local user operation failed", { operation, feedId, status, code: typeof code === "string" ? code : undefined });
      throw new AppError("SERVICE_UNAVAILABLE", "The feed's SFTP login could not be changed in the storage account; try again", { cause: error });
    }
  }
}
