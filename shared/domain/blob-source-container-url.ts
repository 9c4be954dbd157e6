import { ownContainerProblem, type ServiceStorage } from "./service-storage";

export { emulatorBlobEndpoint, type ServiceStorage } from "./service-storage";

/** Where a blob source reads or a blob export writes: a storage account's container. */
export interface ContainerLocation {
  /** The container's URL, normalised (no trailing slash). */
  url: string;
  /** The storage account's name. */
  account: string;
  container: string;
  /** True for the local storage emulator (reached with its account key), false for Azure (with the managed identity). */
  emulator: boolean;
}

/**
 * The blob endpoints of Azure's clouds: public, US Government, China (21Vianet). Only these hosts ever
 * get the service's managed-identity token; Germany's `blob.core.cloudapi.de` was retired in 2021.
 */
const AZURE =
  /^https:\/\/([a-z0-9]{3,24})\.blob\.core\.(?:windows\.net|usgovcloudapi\.net|chinacloudapi\.cn)\/([^/]+)\/?$/;
const CONTAINER = /^(?=.{3,63}$)[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$/;
const EXPECTED =
  "https://ACCOUNT.blob.core.windows.net/CONTAINER (or .blob.core.usgovcloudapi.net, .blob.core.chinacloudapi.cn)";

/**
 * Reads a customer's `containerUrl` (a blob source's, a blob export's): `https://ACCOUNT.blob.core.windows.net/CONTAINER`
 * (or a sovereign cloud's blob endpoint), or, only when the service itself runs on the storage
 * emulator, `<emulator blob endpoint>/CONTAINER`. Never a SAS, a query or credentials: access is the
 * service's identity, granted by the customer. Never the service's own storage (see ServiceStorage).
 * Answers the location, or the problem to report on `containerUrl`.
 */
export function parseContainerUrl(value: string, storage: ServiceStorage): ContainerLocation | { problem: string } {
  const location = locate(value, storage.emulatorEndpoint);
  if ("problem" in location) return location;
  const own = ownContainerProblem(location, storage);
  return own === undefined ? location : { problem: own };
}

function locate(value: string, emulatorEndpoint: string | undefined): ContainerLocation | { problem: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { problem: `must be an absolute URL: ${EXPECTED}` };
  }
  if (url.username !== "" || url.password !== "")
    return { problem: "must not contain credentials: the service reads with its managed identity" };
  if (url.search !== "" || value.includes("?"))
    return { problem: "must not carry a query or SAS token: the service reads with its managed identity" };
  if (url.hash !== "" || value.includes("#")) return { problem: "must not carry a fragment" };
  const azure = AZURE.exec(value);
  if (azure !== null) {
    const container = azure[2] ?? "";
    if (!CONTAINER.test(container))
      return { problem: `"${container}" is not a container name (3-63 lowercase letters, digits and single hyphens)` };
    return { url: value.replace(/\/$/, ""), account: azure[1] ?? "", container, emulator: false };
  }
  if (emulatorEndpoint !== undefined) {
    const base = emulatorEndpoint.replace(/\/$/, "");
    if (value.startsWith(`${base}/`)) {
      const container = value.slice(base.length + 1).replace(/\/$/, "");
      if (!CONTAINER.test(container))
        return {
          problem: `"${container}" is not a container name (3-63 lowercase letters, digits and single hyphens)`,
        };
      return { url: `${base}/${container}`, account: base.slice(base.lastIndexOf("/") + 1), container, emulator: true };
    }
    return { problem: `must be ${EXPECTED} or, on this emulator-backed service, ${base}/CONTAINER` };
  }
  return {
    problem: `must be ${EXPECTED} (lowercase account of 3-24 letters and digits, one container, nothing after it)`,
  };
}
