// How the local blob host reads a blob trigger: what it refuses, the binding data it sends, the path it matches.
import { ResourceFactoryResolver } from "@azure/functions-extensions-base";
import type { LoadedFunction } from "./functions-host";

/** The model binding source of blobs, as the Storage Blobs extension names it. */
export const BLOB_SOURCE = "AzureStorageBlobs";

/**
 * Refuses what Azure would not run as the local host runs it: a blob trigger must name `source:
 * "EventGrid"` (Flex Consumption runs no other; one naming none polls the container, which Flex
 * Consumption never does, so the two hosts would disagree) and take a reference (`sdkBinding: true`:
 * the host never reads the blob into the worker), resolved by a registered `AzureStorageBlobs` factory.
 */
export function checkBlobTrigger(fn: LoadedFunction): void {
  const source = fn.trigger["source"];
  if (source !== "EventGrid") {
    throw new Error(
      `function '${fn.name}': its blob trigger ${source === undefined ? "names no source" : `has source '${typeof source === "string" ? source : JSON.stringify(source)}'`}; register it with source: "EventGrid" (Flex Consumption runs blob triggers from Event Grid only)`,
    );
  }
  const properties = fn.trigger["properties"] as { supportsDeferredBinding?: unknown } | undefined;
  if (properties?.supportsDeferredBinding !== "true") {
    throw new Error(
      `function '${fn.name}': its blob trigger must use sdkBinding: true (a reference to the blob, not its content held in memory)`,
    );
  }
  if (!ResourceFactoryResolver.getInstance().hasResourceFactory(BLOB_SOURCE)) {
    throw new Error(
      `function '${fn.name}': no resource factory for '${BLOB_SOURCE}' is registered to turn the trigger's binding data into its argument`,
    );
  }
}

/** What the Functions host sends a worker for a blob with sdkBinding: the blob named, not read. */
export function modelBindingData(
  connection: unknown,
  containerName: string,
  blobName: string,
): { version: string; source: string; contentType: string; content: Buffer } {
  const content = JSON.stringify({
    Connection: typeof connection === "string" ? connection : "",
    ContainerName: containerName,
    BlobName: blobName,
  });
  return { version: "1.0", source: BLOB_SOURCE, contentType: "application/json", content: Buffer.from(content) };
}

/** `container/prefix{name}.csv` → the container and a matcher that yields the named parts. */
export function compileBlobPath(path: string): {
  container: string;
  match: (blobName: string) => Record<string, string> | undefined;
} {
  const slash = path.indexOf("/");
  const container = slash < 0 ? path : path.slice(0, slash);
  const pattern = slash < 0 ? "{name}" : path.slice(slash + 1);
  const names: string[] = [];
  const source = pattern.replace(/\{([A-Za-z0-9_]+)\}|[.*+?^$()|[\]\\]/g, (token, name: string | undefined) => {
    if (name === undefined) return `\\${token}`;
    names.push(name);
    return "(.+?)";
  });
  // `s`: a name part may hold any character, line separators too (U+2028 is a line end to `.`).
  const regex = new RegExp(`^${source}$`, "s");
  return {
    container,
    match(blobName) {
      const m = regex.exec(blobName);
      if (m === null) return undefined;
      return Object.fromEntries(names.map((n, i) => [n, m[i + 1] ?? ""]));
    },
  };
}
