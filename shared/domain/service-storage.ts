/**
 * The service's own storage, which no customer setting may name: a blob source reading the service's
 * `archive` would ingest one feed's archived files into another, and an export written into its
 * `inbound` would inject a file into a feed. In Azure the service's storage accounts are refused
 * whole. On the storage emulator, where the local runtime and the tests use other containers of the
 * one emulator account as customers' containers, the service's own containers are refused by name.
 */
export interface ServiceStorage {
  /** The blob endpoint of the emulator the service runs on, if it does: its containers may then be named (except the service's own). */
  emulatorEndpoint: string | undefined;
  /** The service's own storage accounts in Azure (lower case). */
  ownAccounts: readonly string[];
}

/** The containers of the service's storage: its data containers (infra/modules/storage.bicep, local/provision.ts) and the Flex Consumption deployment package. */
// `exports` was created by earlier deployments and is still the service's own.
export const SERVICE_CONTAINERS: readonly string[] = ["inbound", "archive", "quarantine", "exports", "app-package"];
/** The Functions host's own containers (`azure-webjobs-hosts`, `azure-webjobs-secrets`; `scm-releases` on Consumption plans). */
const HOST_CONTAINER_PREFIXES = ["azure-webjobs-", "scm-"];

/** Why a container location is the service's own storage, or undefined when it is a customer's. */
export function ownContainerProblem(location: { account: string; container: string; emulator: boolean }, storage: ServiceStorage): string | undefined {
  if (!location.emulator) {
    return storage.ownAccounts.includes(location.account.toLowerCase())
      ? `is the service's own storage account (${location.account}); name a container of the customer's account`
      : undefined;
  }
  const { container } = location;
  if (SERVICE_CONTAINERS.includes(container) || HOST_CONTAINER_PREFIXES.some((p) => container.startsWith(p))) {
    return `"${container}" is one of the service's own containers; name another container of the emulator`;
  }
  return undefined;
}

/** The app settings that name the service's storage. */
export interface StorageSettings {
  /** STORAGE_CONNECTION_STRING */
  connectionString?: string | undefined;
  /** STORAGE_BLOB_ENDPOINT */
  blobEndpoint?: string | undefined;
  /** STORAGE_ACCOUNT_RESOURCE_ID */
  accountResourceId?: string | undefined;
  /** AzureWebJobsStorage__accountName: the Functions host's account (the same one in infra/). */
  hostAccountName?: string | undefined;
}

/** What the service's settings say of its own storage. */
export function serviceStorageOf(settings: StorageSettings): ServiceStorage {
  const accounts = new Set<string>();
  const add = (name: string | undefined): void => {
    if (name !== undefined && name !== "") accounts.add(name.toLowerCase());
  };
  if (settings.connectionString !== undefined) {
    const parts = connectionStringParts(settings.connectionString);
    add(parts.get("accountname"));
    add(accountOfEndpoint(parts.get("blobendpoint")));
  }
  add(accountOfEndpoint(settings.blobEndpoint));
  add(settings.accountResourceId?.split("/").pop());
  add(settings.hostAccountName);
  return { emulatorEndpoint: emulatorBlobEndpoint(settings.connectionString), ownAccounts: [...accounts] };
}

/** `https://ACCOUNT.blob.core.windows.net/` → ACCOUNT; an emulator's `http://127.0.0.1:10000/ACCOUNT` → ACCOUNT. */
function accountOfEndpoint(endpoint: string | undefined): string | undefined {
  if (endpoint === undefined) return undefined;
  try {
    const url = new URL(endpoint);
    if (/\.blob\./.test(url.hostname)) return url.hostname.split(".")[0];
    return url.pathname.split("/").find((s) => s !== "");
  } catch {
    return undefined;
  }
}

/** The well-known account the storage emulators (Azurite) serve. */
const EMULATOR_ACCOUNT = "devstoreaccount1";

/**
 * The blob endpoint of the storage emulator the service itself uses, read from its connection
 * string (`UseDevelopmentStorage=true`, or the emulator's well-known account); undefined on Azure.
 */
export function emulatorBlobEndpoint(connectionString: string | undefined): string | undefined {
  if (connectionString === undefined) return undefined;
  const parts = connectionStringParts(connectionString);
  if (parts.get("usedevelopmentstorage")?.toLowerCase() === "true") return `http://127.0.0.1:10000/${EMULATOR_ACCOUNT}`;
  if (parts.get("accountname") !== EMULATOR_ACCOUNT) return undefined;
  return (parts.get("blobendpoint") ?? `http://127.0.0.1:10000/${EMULATOR_ACCOUNT}`).replace(/\/$/, "");
}

/** A storage connection string's `key=value` parts, keys lower-cased. */
function connectionStringParts(connectionString: string): Map<string, string> {
  const parts = new Map<string, string>();
  for (const part of connectionString.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  return parts;
}
