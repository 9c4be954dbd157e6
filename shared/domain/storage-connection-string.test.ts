import { describe, expect, it } from "vitest";
import {
  DEVELOPMENT_ACCOUNT_KEY,
  emulatorAccountOf,
  emulatorBlobEndpointOf,
  parseStorageConnectionString,
  StorageConnectionStringError,
} from "./storage-connection-string";

const AZURITE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

describe("parseStorageConnectionString", () => {
  it("reads UseDevelopmentStorage=true as the emulator's account on its default ports", () => {
    const connection = parseStorageConnectionString("UseDevelopmentStorage=true");
    expect(connection).toEqual({
      developmentStorage: true,
      accountName: "devstoreaccount1",
      accountKey: DEVELOPMENT_ACCOUNT_KEY,
      blobEndpoint: "http://127.0.0.1:10000/devstoreaccount1",
      queueEndpoint: "http://127.0.0.1:10001/devstoreaccount1",
    });
    expect(emulatorAccountOf(connection)).toEqual({
      accountName: "devstoreaccount1",
      accountKey: AZURITE_KEY,
      blobEndpoint: "http://127.0.0.1:10000/devstoreaccount1",
    });
    expect(parseStorageConnectionString("usedevelopmentstorage=TRUE").developmentStorage).toBe(true);
    expect(
      parseStorageConnectionString("UseDevelopmentStorage=false;AccountName=a;AccountKey=k==").developmentStorage,
    ).toBe(false);
  });

  it("reads explicit endpoints, without their trailing slash, and keys in any case", () => {
    const text = `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${AZURITE_KEY};BlobEndpoint=http://127.0.0.1:41234/devstoreaccount1/;QueueEndpoint=http://127.0.0.1:41235/devstoreaccount1;`;
    const connection = parseStorageConnectionString(text);
    expect(connection).toEqual({
      developmentStorage: false,
      accountName: "devstoreaccount1",
      accountKey: AZURITE_KEY,
      blobEndpoint: "http://127.0.0.1:41234/devstoreaccount1",
      queueEndpoint: "http://127.0.0.1:41235/devstoreaccount1",
    });
    expect(emulatorBlobEndpointOf(connection)).toBe("http://127.0.0.1:41234/devstoreaccount1");
    expect(
      parseStorageConnectionString(" accountname = acct ; BLOBENDPOINT = https://acct.blob.core.windows.net ")
        .blobEndpoint,
    ).toBe("https://acct.blob.core.windows.net");
  });

  it("derives endpoints from the protocol, account name and EndpointSuffix, and knows it is not the emulator", () => {
    const connection = parseStorageConnectionString(
      "DefaultEndpointsProtocol=https;AccountName=prodacct;AccountKey=k==;EndpointSuffix=core.windows.net",
    );
    expect(connection.blobEndpoint).toBe("https://prodacct.blob.core.windows.net");
    expect(connection.queueEndpoint).toBe("https://prodacct.queue.core.windows.net");
    expect(emulatorBlobEndpointOf(connection)).toBeUndefined();
    expect(emulatorAccountOf(connection)).toBeUndefined();
    expect(parseStorageConnectionString("AccountName=cn;EndpointSuffix=core.chinacloudapi.cn").blobEndpoint).toBe(
      "https://cn.blob.core.chinacloudapi.cn",
    );
    expect(parseStorageConnectionString("AccountName=noendpoint;AccountKey=k==").blobEndpoint).toBeUndefined();
  });

  it("keeps every = after the first in a value (base64 keys, SAS tokens)", () => {
    const connection = parseStorageConnectionString(
      "AccountName=a;AccountKey=YWJj==;SharedAccessSignature=sv=2024&sig=x%3D=",
    );
    expect(connection.accountKey).toBe("YWJj==");
  });

  it("refuses what two readers could read differently, naming the key but never a value", () => {
    const refusal = (text: string): string => {
      try {
        parseStorageConnectionString(text);
      } catch (error) {
        expect(error).toBeInstanceOf(StorageConnectionStringError);
        return (error as Error).message;
      }
      throw new Error(`accepted: ${text}`);
    };
    expect(refusal("AccountName=a;AccountKey=c2VjcmV0;AccountName=b")).toBe("AccountName is given twice");
    expect(refusal('AccountName=a;AccountKey="c2VjcmV0"')).toMatch(/^the value of AccountKey is quoted/);
    expect(refusal("AccountName=a;AccountKey='c2VjcmV0'")).toMatch(/^the value of AccountKey is quoted/);
    expect(refusal("AccountName=a;c2VjcmV0")).toBe("part 2 of the connection string is not Key=value");
    expect(refusal("AccountName=a;=c2VjcmV0")).toBe("part 2 of the connection string is not Key=value");
    expect(refusal("UseDevelopmentStorage=yes")).toBe("UseDevelopmentStorage must be true or false");
    expect(refusal("DefaultEndpointsProtocol=ftp;AccountName=a")).toBe(
      "DefaultEndpointsProtocol must be http or https",
    );
    expect(refusal(" ; ;")).toBe("the connection string is empty");
    for (const text of ["AccountName=a;AccountKey=c2VjcmV0;AccountName=b", "AccountName=a;c2VjcmV0"])
      expect(refusal(text)).not.toMatch(/c2VjcmV0/);
  });
});
