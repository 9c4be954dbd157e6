import { emulatorBlobEndpointOf, parseStorageConnectionString } from "./storage-connection-string";

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

/**
 * The containers of the service's storage: its data containers (infra/modules/storage.bicep, local/provision.ts)
 * and the Flex Consumption deployment package. `exports` was created by earlier deployments and is still the service's own.
 */
export const SERVICE_CONTAINERS: readonly string[] = ["inbound", "archive", "quarantine", "exports", "app-package"];
/** The Functions host's own containers (`azure-webjobs-hosts`, `azure-webjobs-secrets`; `scm-releases` on Consumption plans). */
const HOST_CONTAINER_PREFIXES = ["azure-webjobs-", "scm-"];

/** Why a container location is the service's own storage, or undefined when it is a customer's. */
export function ownContainerProblem(
  location: { account: string; container: string; emulator: boolean },
  storage: ServiceStorage,
): string | undefined {
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
  const connection =
    settings.connectionString === undefined ? undefined : parseStorageConnectionString(settings.connectionString);
  add(connection?.accountName);
  add(accountOfEndpoint(connection?.blobEndpoint));
  add(accountOfEndpoint(settings.blobEndpoint));
  add(settings.accountResourceId?.split("/").pop());
  add(settings.hostAccountName);
  return {
    emulatorEndpoint: connection === undefined ? undefined : emulatorBlobEndpointOf(connection),
    ownAccounts: [...accounts],
  };
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

/**
 * The blob endpoint of the storage emulator the service itself uses, read from its connection
 * string (`UseDevelopmentStorage=true`, or the emulator's well-known account); undefined on Azure.
 */
export function emulatorBlobEndpoint(connectionString: string | undefined): string | undefined {
  return connectionString === undefined
    ? undefined
    : emulatorBlobEndpointOf(parseStorageConnectionString(connectionString));
}
