import { describe, expect, it } from "vitest";
import { BLOB_CONTAINERS } from "../../local/provision";
import { emulatorBlobEndpoint, parseContainerUrl, type ServiceStorage } from "./blob-source-container-url";
import { serviceStorageOf } from "./service-storage";

const EMULATOR = "http://127.0.0.1:10000/devstoreaccount1";
const onAzure: ServiceStorage = { emulatorEndpoint: undefined, ownAccounts: ["idsprodstore"] };
const onEmulator: ServiceStorage = { emulatorEndpoint: EMULATOR, ownAccounts: ["devstoreaccount1"] };
const problem = (url: string, storage: ServiceStorage = onAzure): string | undefined => {
  const parsed = parseContainerUrl(url, storage);
  return "problem" in parsed ? parsed.problem : undefined;
};

describe("a customer's containerUrl (blob sources and blob exports)", () => {
  it("takes an Azure container URL, normalised, read with the managed identity", () => {
    expect(parseContainerUrl("https://custacct01.blob.core.windows.net/drop/", onAzure)).toEqual({
      url: "https://custacct01.blob.core.windows.net/drop",
      account: "custacct01",
      container: "drop",
      emulator: false,
    });
    expect(parseContainerUrl("https://custacct01.blob.core.windows.net/nav-files", onEmulator)).toMatchObject({
      emulator: false,
      container: "nav-files",
    });
  });

  it("takes the blob endpoints of the sovereign clouds, and no other host that merely contains one", () => {
    expect(parseContainerUrl("https://govacct.blob.core.usgovcloudapi.net/drop", onAzure)).toMatchObject({
      account: "govacct",
      container: "drop",
    });
    expect(parseContainerUrl("https://cnacct.blob.core.chinacloudapi.cn/drop", onAzure)).toMatchObject({
      account: "cnacct",
      container: "drop",
    });
    for (const url of [
      "https://attacker.example/stolen",
      "https://169.254.169.254/metadata",
      "http://10.0.0.1/drop",
      "https://custacct.blob.core.windows.net.attacker.example/drop",
      "https://custacct.blob.core.windows.net:8443/drop",
      "https://custacct.blob.core.cloudapi.de/drop",
      "https://custacct.dfs.core.windows.net/drop",
      "https://custacct.blob.core.windows.net./drop",
    ]) {
      expect(problem(url), url).toMatch(/blob\.core\.windows\.net/);
    }
  });

  it("takes the emulator's URL only when the service runs on that emulator", () => {
    expect(parseContainerUrl(`${EMULATOR}/customer-drop`, onEmulator)).toEqual({
      url: `${EMULATOR}/customer-drop`,
      account: "devstoreaccount1",
      container: "customer-drop",
      emulator: true,
    });
    expect(problem(`${EMULATOR}/customer-drop`)).toMatch(/blob\.core\.windows\.net/);
    expect(problem("http://127.0.0.1:10001/devstoreaccount1/x-files", onEmulator)).toMatch(
      /on this emulator-backed service/,
    );
  });

  it("refuses the service's own account in Azure, and the service's and the Functions host's containers on the emulator", () => {
    expect(problem("https://idsprodstore.blob.core.windows.net/archive")).toMatch(
      /service's own storage account \(idsprodstore\)/,
    );
    expect(problem("https://idsprodstore.blob.core.windows.net/customer-files")).toMatch(
      /service's own storage account/,
    );
    for (const container of [
      ...BLOB_CONTAINERS,
      "app-package",
      "azure-webjobs-hosts",
      "azure-webjobs-secrets",
      "scm-releases",
    ]) {
      expect(problem(`${EMULATOR}/${container}`, onEmulator), container).toMatch(/one of the service's own containers/);
    }
    expect(problem(`${EMULATOR}/archive-of-customer`, onEmulator)).toBeUndefined();
  });

  it("refuses credentials, SAS tokens, http, and paths that are not one container", () => {
    expect(problem("https://custacct01.blob.core.windows.net/drop?sv=2024&sig=abc")).toMatch(/SAS/);
    expect(problem("https://user:pw@custacct01.blob.core.windows.net/drop")).toMatch(/credentials/);
    expect(problem("http://custacct01.blob.core.windows.net/drop")).toBeDefined();
    expect(problem("https://custacct01.blob.core.windows.net/drop/sub")).toBeDefined();
    expect(problem("https://custacct01.blob.core.windows.net/")).toBeDefined();
    expect(problem("https://CustAcct.blob.core.windows.net/drop")).toBeDefined();
    expect(problem("https://custacct01.blob.core.windows.net/Drop")).toMatch(/container name/);
    expect(problem("https://custacct01.blob.core.windows.net/a--b")).toMatch(/container name/);
    expect(problem(`${EMULATOR}/x/../inbound`, onEmulator)).toMatch(/container name/);
    expect(problem("not a url")).toMatch(/absolute URL/);
  });

  it("finds the emulator's blob endpoint in the service's own connection string", () => {
    expect(emulatorBlobEndpoint("UseDevelopmentStorage=true")).toBe(EMULATOR);
    expect(
      emulatorBlobEndpoint(
        "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k==;BlobEndpoint=http://127.0.0.1:41234/devstoreaccount1;QueueEndpoint=x;",
      ),
    ).toBe("http://127.0.0.1:41234/devstoreaccount1");
    expect(
      emulatorBlobEndpoint(
        "DefaultEndpointsProtocol=https;AccountName=prodacct;AccountKey=k==;EndpointSuffix=core.windows.net",
      ),
    ).toBeUndefined();
    expect(emulatorBlobEndpoint(undefined)).toBeUndefined();
  });

  it("knows the service's own accounts from every setting that names one", () => {
    expect(
      serviceStorageOf({
        blobEndpoint: "https://IdsStore.blob.core.windows.net/",
        accountResourceId: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/idsstore",
        hostAccountName: "idshost",
      }),
    ).toEqual({ emulatorEndpoint: undefined, ownAccounts: ["idsstore", "idshost"] });
    expect(
      serviceStorageOf({
        connectionString:
          "DefaultEndpointsProtocol=https;AccountName=prodacct;AccountKey=k==;EndpointSuffix=core.windows.net",
      }).ownAccounts,
    ).toEqual(["prodacct"]);
    expect(
      serviceStorageOf({ connectionString: `AccountName=devstoreaccount1;AccountKey=k==;BlobEndpoint=${EMULATOR}` }),
    ).toEqual({ emulatorEndpoint: EMULATOR, ownAccounts: ["devstoreaccount1"] });
  });
});
