import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { randomBytes } from "node:crypto";
import type { TokenCredential } from "@azure/core-auth";
import { ContainerClient, RestError, type StorageSharedKeyCredential } from "@azure/storage-blob";
import type { ContainerLocation } from "../../domain/blob-source-container-url";
import { ConnectionSteps, type ConnectionTest } from "../../domain/connection-test";
import { CustomerContainerError } from "../../domain/customer-blob";
import type { ContainerConnectionProbe } from "../../ports/connection-tests";
import { emulatorKeyOf, translateContainerError } from "./blob-customer-containers";

/** How many names the list step shows. */
const SHOWN = 3;

const messageOf = (error: unknown, location: ContainerLocation): string => {
  const translated = translateContainerError(error, location);
  return translated instanceof CustomerContainerError
    ? translated.message
    : `the container ${location.url} could not be reached`;
};

/**
 * The blob connection test (ContainerConnectionProbe) with the credentials a run uses: the managed
 * identity on Azure, the emulator's key for a container of the emulator the service runs on. It
 * resolves the account's host, lists the first blobs under the prefix and, for an export's
 * destination, writes and deletes a probe blob `<prefix>.ids-connection-test-<random>`.
 */
export class BlobContainerProbe implements ContainerConnectionProbe {
  constructor(
    private readonly identity: () => TokenCredential,
    private readonly emulatorKey: StorageSharedKeyCredential | undefined,
  ) {}

  /** With the service's storage connection string (local: the emulator's key also reaches emulator containers), or none (Azure). */
  static forService(connectionString: string | undefined, identity: () => TokenCredential): BlobContainerProbe {
    return new BlobContainerProbe(
      identity,
      connectionString === undefined ? undefined : emulatorKeyOf(connectionString),
    );
  }

  async test(
    location: ContainerLocation,
    prefix: string | undefined,
    options: { write: boolean },
  ): Promise<ConnectionTest> {
    const steps = new ConnectionSteps(options.write ? ["resolve", "list", "write"] : ["resolve", "list"]);
    const host = new URL(location.url).hostname;
    try {
      const addresses = isIP(host) !== 0 ? [{ address: host }] : await lookup(host, { all: true });
      steps.passed("resolve", `${host} is ${addresses.map((a) => a.address).join(", ")}`);
    } catch {
      steps.failed("resolve", `the storage account's host ${host} could not be resolved: check the account name`);
      return steps.result();
    }
    let container: ContainerClient;
    try {
      container = this.client(location);
    } catch (error) {
      steps.failed("list", messageOf(error, location));
      return steps.result();
    }
    const under = prefix !== undefined && prefix !== "" ? ` under ${prefix}` : "";
    try {
      const page = await container
        .listBlobsFlat(prefix !== undefined && prefix !== "" ? { prefix } : {})
        .byPage({ maxPageSize: SHOWN })
        .next();
      const names = page.done === true ? [] : page.value.segment.blobItems.map((b) => b.name);
      const more =
        page.done !== true && page.value.continuationToken !== undefined && page.value.continuationToken !== "";
      steps.passed(
        "list",
        names.length === 0
          ? `listed ${location.url}: no blob${under} yet`
          : `listed ${location.url}${under}: ${names.join(", ")}${more ? " and more" : ""}`,
      );
    } catch (error) {
      steps.failed("list", messageOf(error, location));
      return steps.result();
    }
    if (!options.write) return steps.result();
    const probe = `${prefix ?? ""}.ids-connection-test-${randomBytes(6).toString("hex")}`;
    const blob = container.getBlockBlobClient(probe);
    try {
      const body = "connection test of the Investment Data Service; safe to delete\n";
      await blob.upload(body, Buffer.byteLength(body), { conditions: { ifNoneMatch: "*" } });
    } catch (error) {
      steps.failed(
        "write",
        error instanceof RestError && error.statusCode === 403
          ? `the container ${location.url} refused to let the service write (403 ${error.code ?? "Forbidden"}): grant the service's managed identity the Storage Blob Data Contributor role on it`
          : messageOf(error, location),
      );
      return steps.result();
    }
    try {
      await blob.delete();
      steps.passed("write", `wrote and deleted ${probe}`);
    } catch (error) {
      steps.failed("write", `wrote ${probe} but could not delete it: ${messageOf(error, location)}`);
    }
    return steps.result();
  }

  private client(location: ContainerLocation): ContainerClient {
    if (!location.emulator) return new ContainerClient(location.url, this.identity());
    if (this.emulatorKey === undefined)
      throw new CustomerContainerError("emulator containers can be reached only when the service runs on the emulator");
    return new ContainerClient(location.url, this.emulatorKey);
  }
}
