import { describe, expect, it } from "vitest";
import { parseConfig } from "../config";
import { Composition } from "./index";

/** Local-runtime-like settings: nothing here connects anywhere until a use case runs. */
const config = parseConfig({
  COSMOS_ENDPOINT: "http://127.0.0.1:8081",
  COSMOS_KEY: "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw==",
  COSMOS_ENDPOINT_DISCOVERY: "false",
  STORAGE_CONNECTION_STRING:
    "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;",
  JWT_SIGNING_KEY: Buffer.alloc(32, 1).toString("base64"),
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 2).toString("base64"),
  REPLICA_ADMIN_PASSWORD: "local-replica-password",
});

describe("the composition root", () => {
  it("builds every adapter and use case of every feature from config", () => {
    const composition = new Composition(config);
    const features = Object.entries(composition).filter(([name]) => name !== "config" && name !== "clock");
    expect(features.map(([name]) => name).sort()).toEqual([
      "access",
      "blobSources",
      "console",
      "core",
      "exports",
      "feeds",
      "investments",
      "replica",
      "settingsAudit",
      "webhooks",
    ]);
    let built = 0;
    for (const [feature, services] of features) {
      for (const [name, build] of Object.entries(services as Record<string, unknown>)) {
        if (typeof build !== "function" || build.length !== 0) continue;
        expect(() => (build as () => unknown)(), `${feature}.${name}`).not.toThrow();
        expect((build as () => unknown)(), `${feature}.${name}`).toBeDefined();
        built++;
      }
    }
    expect(built).toBeGreaterThan(50);
  });
});
