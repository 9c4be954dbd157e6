/**
 * A storage account connection string (`AccountName=…;AccountKey=…;BlobEndpoint=…`, or
 * `UseDevelopmentStorage=true`), read one way by everything that needs more of it than the storage
 * SDKs do: which account is the service's own, whether it runs on the emulator, the emulator's key
 * and ports. Keys are read without regard to case; a value keeps every `=` after the first (account
 * keys end in `==`). A string two readers could read differently is refused rather than guessed at:
 * the SDKs take the first of a repeated key and a quoted value literally.
 */
export interface StorageConnectionString {
  /** `UseDevelopmentStorage=true`: the emulator's well-known account on its default ports. */
  readonly developmentStorage: boolean;
  readonly accountName: string | undefined;
  readonly accountKey: string | undefined;
  /** `BlobEndpoint`, else derived from `EndpointSuffix` or the development storage; no trailing slash. */
  readonly blobEndpoint: string | undefined;
  /** `QueueEndpoint`, else derived like the blob endpoint; no trailing slash. */
  readonly queueEndpoint: string | undefined;
}

/** A connection string that cannot be read. The message never repeats a value: values hold keys. */
export class StorageConnectionStringError extends Error {
  override readonly name = "StorageConnectionStringError";
}

/** The account the storage emulators (Azurite) serve, and its published key (not a secret). */
export const DEVELOPMENT_ACCOUNT = "devstoreaccount1";
export const DEVELOPMENT_ACCOUNT_KEY =
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
const DEVELOPMENT_PORTS = { blob: 10000, queue: 10001 } as const;

/** Reads a connection string; throws a StorageConnectionStringError for one it cannot read whole. */
export function parseStorageConnectionString(text: string): StorageConnectionString {
  const parts = partsOf(text);
  const developmentStorage = developmentStorageOf(parts);
  const protocol = parts.get("defaultendpointsprotocol")?.toLowerCase() ?? "https";
  if (protocol !== "https" && protocol !== "http")
    throw new StorageConnectionStringError("DefaultEndpointsProtocol must be http or https");
  const accountName = parts.get("accountname") ?? (developmentStorage ? DEVELOPMENT_ACCOUNT : undefined);
  const endpoint = (service: "blob" | "queue"): string | undefined => {
    const given = parts.get(`${service}endpoint`);
    if (given !== undefined) return given.replace(/\/+$/, "");
    if (developmentStorage) return `http://127.0.0.1:${DEVELOPMENT_PORTS[service]}/${DEVELOPMENT_ACCOUNT}`;
    const suffix = parts.get("endpointsuffix");
    return suffix !== undefined && accountName !== undefined
      ? `${protocol}://${accountName}.${service}.${suffix}`
      : undefined;
  };
  return {
    developmentStorage,
    accountName,
    accountKey: parts.get("accountkey") ?? (developmentStorage ? DEVELOPMENT_ACCOUNT_KEY : undefined),
    blobEndpoint: endpoint("blob"),
    queueEndpoint: endpoint("queue"),
  };
}

/** The emulator's account, when a connection string names the emulator; the service reaches the emulator's containers with its key. */
export interface EmulatorAccount {
  blobEndpoint: string;
  accountName: string;
  accountKey: string;
}

/** The blob endpoint of the emulator a connection string names (development storage, or the emulator's well-known account); undefined on Azure. */
export function emulatorBlobEndpointOf(connection: StorageConnectionString): string | undefined {
  if (connection.accountName !== DEVELOPMENT_ACCOUNT) return undefined;
  return connection.blobEndpoint ?? `http://127.0.0.1:${DEVELOPMENT_PORTS.blob}/${DEVELOPMENT_ACCOUNT}`;
}

/** The emulator account of a connection string, with its key; undefined on Azure. */
export function emulatorAccountOf(connection: StorageConnectionString): EmulatorAccount | undefined {
  const blobEndpoint = emulatorBlobEndpointOf(connection);
  const { accountName, accountKey } = connection;
  if (blobEndpoint === undefined || accountName === undefined || accountKey === undefined) return undefined;
  return { blobEndpoint, accountName, accountKey };
}

/** The `key=value` parts, keys lower-cased; empty parts (a trailing `;`) are skipped. */
function partsOf(text: string): Map<string, string> {
  const parts = new Map<string, string>();
  const pieces = text.split(";");
  pieces.forEach((piece, index) => {
    if (piece.trim() === "") return;
    const eq = piece.indexOf("=");
    const name = piece.slice(0, Math.max(eq, 0)).trim();
    if (name === "")
      throw new StorageConnectionStringError(`part ${index + 1} of the connection string is not Key=value`);
    const key = name.toLowerCase();
    const value = piece.slice(eq + 1).trim();
    if (/^["']/.test(value))
      throw new StorageConnectionStringError(
        `the value of ${name} is quoted; the storage SDKs would read the quotes as part of it`,
      );
    if (parts.has(key)) throw new StorageConnectionStringError(`${name} is given twice`);
    parts.set(key, value);
  });
  if (parts.size === 0) throw new StorageConnectionStringError("the connection string is empty");
  return parts;
}

function developmentStorageOf(parts: Map<string, string>): boolean {
  const value = parts.get("usedevelopmentstorage")?.toLowerCase();
  if (value === undefined || value === "false") return false;
  if (value === "true") return true;
  throw new StorageConnectionStringError("UseDevelopmentStorage must be true or false");
}
