/** Where a blob source reads: a storage account's container. */
export interface ContainerLocation {
  /** The container's URL, normalised (no trailing slash). */
  url: string;
  container: string;
  /** True for the local storage emulator (read with its account key), false for Azure (read with the managed identity). */
  emulator: boolean;
}

const AZURE = /^https:\/\/([a-z0-9]{3,24})\.blob\.core\.windows\.net\/([^/]+)\/?$/;
const CONTAINER = /^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/;

/**
 * Reads a blob source's `containerUrl`: `https://ACCOUNT.blob.core.windows.net/CONTAINER`, or, only when
 * the service itself runs on the storage emulator, `<emulator blob endpoint>/CONTAINER`. Never a SAS,
 * a query or credentials: access is the service's identity, granted by the customer.
 * Answers the location, or the problem to report on `containerUrl`.
 */
export function parseContainerUrl(value: string, emulatorEndpoint: string | undefined): ContainerLocation | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: "must be an absolute URL: https://ACCOUNT.blob.core.windows.net/CONTAINER" };
  }
  if (url.username !== "" || url.password !== "") return { problem: "must not contain credentials: the service reads with its managed identity" };
  if (url.search !== "" || value.includes("?")) return { problem: "must not carry a query or SAS token: the service reads with its managed identity" };
  if (url.hash !== "" || value.includes("#")) return { problem: "must not carry a fragment" };
  const azure = AZURE.exec(value);
  if (azure !== null) {
    const container = azure[2] ?? "";
    if (!CONTAINER.test(container)) return { problem: `"${container}" is not a container name (3-63 lowercase letters, digits and single hyphens)` };
    return { url: value.replace(/\/$/, ""), container, emulator: false };
  }
  if (emulatorEndpoint !== undefined) {
    const base = emulatorEndpoint.replace(/\/$/, "");
    if (value.startsWith(`${base}/`)) {
      const container = value.slice(base.length + 1).replace(/\/$/, "");
      if (!CONTAINER.test(container)) return { problem: `"${container}" is not a container name (3-63 lowercase letters, digits and single hyphens)` };
      return { url: `${base}/${container}`, container, emulator: true };
    }
    return { problem: `must be https://ACCOUNT.blob.core.windows.net/CONTAINER or, on this emulator-backed service, ${base}/CONTAINER` };
  }
  return { problem: "must be https://ACCOUNT.blob.core.windows.net/CONTAINER (lowercase account of 3-24 letters and digits, one container, nothing after it)" };
}

/** The well-known account the storage emulators (Azurite) serve. */
const EMULATOR_ACCOUNT = "devstoreaccount1";

/**
 * The blob endpoint of the storage emulator the service itself uses, read from its connection
 * string (`UseDevelopmentStorage=true`, or the emulator's well-known account); undefined on Azure.
 */
export function emulatorBlobEndpoint(connectionString: string | undefined): string | undefined {
  if (connectionString === undefined) return undefined;
  const parts = new Map<string, string>();
  for (const part of connectionString.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) parts.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  if (parts.get("usedevelopmentstorage")?.toLowerCase() === "true") return `http://127.0.0.1:10000/${EMULATOR_ACCOUNT}`;
  if (parts.get("accountname") !== EMULATOR_ACCOUNT) return undefined;
  return (parts.get("blobendpoint") ?? `http://127.0.0.1:10000/${EMULATOR_ACCOUNT}`).replace(/\/$/, "");
}
