import { describe, expect, it } from "vitest";
import { emulatorBlobEndpoint, parseContainerUrl } from "./blob-source-container-url";

const EMULATOR = "http://127.0.0.1:10000/devstoreaccount1";
const problem = (url: string, emulator?: string): string | undefined => {
  const parsed = parseContainerUrl(url, emulator);
  return "problem" in parsed ? parsed.problem : undefined;
};

describe("a blob source's containerUrl", () => {
  it("takes an Azure container URL, normalised, read with the managed identity", () => {
    expect(parseContainerUrl("https://custacct01.blob.core.windows.net/drop/", undefined)).toEqual({ url: "https://custacct01.blob.core.windows.net/drop", container: "drop", emulator: false });
    expect(parseContainerUrl("https://custacct01.blob.core.windows.net/nav-files", EMULATOR)).toMatchObject({ emulator: false, container: "nav-files" });
  });

  it("takes the emulator's URL only when the service runs on that emulator", () => {
    expect(parseContainerUrl(`${EMULATOR}/customer-drop`, EMULATOR)).toEqual({ url: `${EMULATOR}/customer-drop`, container: "customer-drop", emulator: true });
    expect(problem(`${EMULATOR}/customer-drop`)).toMatch(/blob\.core\.windows\.net/);
    expect(problem("http://127.0.0.1:10001/devstoreaccount1/x-files", EMULATOR)).toMatch(/on this emulator-backed service/);
  });

  it("refuses credentials, SAS tokens, other hosts, http, and paths that are not one container", () => {
    expect(problem("https://custacct01.blob.core.windows.net/drop?sv=2024&sig=abc")).toMatch(/SAS/);
    expect(problem("https://user:pw@custacct01.blob.core.windows.net/drop")).toMatch(/credentials/);
    expect(problem("http://custacct01.blob.core.windows.net/drop")).toBeDefined();
    expect(problem("https://custacct01.blob.core.windows.net/drop/sub")).toBeDefined();
    expect(problem("https://custacct01.blob.core.windows.net/")).toBeDefined();
    expect(problem("https://CustAcct.blob.core.windows.net/drop")).toBeDefined();
    expect(problem("https://evil.example.com/drop")).toBeDefined();
    expect(problem("https://custacct01.blob.core.windows.net/Drop")).toMatch(/container name/);
    expect(problem("https://custacct01.blob.core.windows.net/a--b")).toMatch(/container name/);
    expect(problem("not a url")).toMatch(/absolute URL/);
  });

  it("finds the emulator's blob endpoint in the service's own connection string", () => {
    expect(emulatorBlobEndpoint("UseDevelopmentStorage=true")).toBe(EMULATOR);
    expect(emulatorBlobEndpoint("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=k==;BlobEndpoint=http://127.0.0.1:41234/devstoreaccount1;QueueEndpoint=x;")).toBe("http://127.0.0.1:41234/devstoreaccount1");
    expect(emulatorBlobEndpoint("DefaultEndpointsProtocol=https;AccountName=prodacct;AccountKey=k==;EndpointSuffix=core.windows.net")).toBeUndefined();
    expect(emulatorBlobEndpoint(undefined)).toBeUndefined();
  });
});
