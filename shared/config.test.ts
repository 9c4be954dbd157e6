import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./config";

const valid = {
  COSMOS_ENDPOINT: "http://127.0.0.1:8081",
  JWT_SIGNING_KEY: Buffer.alloc(32, 7).toString("base64"),
  WEBHOOK_SECRET_KEY: Buffer.alloc(32, 9).toString("base64"),
};

describe("parseConfig", () => {
  it("applies defaults", () => {
    const config = parseConfig(valid);
    expect(config.RATE_LIMIT_STANDARD_PER_MINUTE).toBe(60);
    expect(config.RATE_LIMIT_PREMIUM_PER_DAY).toBe(100_000);
    expect(config.COSMOS_DATABASE).toBe("investment-data");
    expect(config.COSMOS_ENDPOINT_DISCOVERY).toBe(true);
  });

  it("names a missing setting", () => {
    expect(() => parseConfig({ JWT_SIGNING_KEY: valid.JWT_SIGNING_KEY })).toThrow(/COSMOS_ENDPOINT: is required/);
  });

  it("treats an empty value as unset", () => {
    expect(() => parseConfig({ ...valid, COSMOS_ENDPOINT: "" })).toThrow(ConfigError);
    expect(
      parseConfig({ ...valid, APPLICATIONINSIGHTS_CONNECTION_STRING: "" }).APPLICATIONINSIGHTS_CONNECTION_STRING,
    ).toBeUndefined();
  });

  it("names every invalid setting", () => {
    let message = "";
    try {
      parseConfig({ ...valid, JWT_SIGNING_KEY: "c2hvcnQ=", RATE_LIMIT_STANDARD_PER_MINUTE: "-1", LOG_LEVEL: "loud" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/JWT_SIGNING_KEY: must be base64 of at least 32 bytes/);
    expect(message).toMatch(/RATE_LIMIT_STANDARD_PER_MINUTE/);
    expect(message).toMatch(/LOG_LEVEL/);
  });

  it("refuses a storage connection string it cannot read one way, without repeating its values", () => {
    const twice = "AccountName=prodacct;AccountKey=c2VjcmV0a2V5;AccountName=otheracct";
    expect(() => parseConfig({ ...valid, STORAGE_CONNECTION_STRING: twice })).toThrow(
      /STORAGE_CONNECTION_STRING: AccountName is given twice/,
    );
    expect(() => parseConfig({ ...valid, STORAGE_CONNECTION_STRING: twice })).not.toThrow(/c2VjcmV0a2V5|otheracct/);
    expect(
      parseConfig({ ...valid, STORAGE_CONNECTION_STRING: "UseDevelopmentStorage=true" }).STORAGE_CONNECTION_STRING,
    ).toBe("UseDevelopmentStorage=true");
  });

  it("requires the bootstrap id and secret together", () => {
    expect(() => parseConfig({ ...valid, BOOTSTRAP_CLIENT_ID: "admin" })).toThrow(/BOOTSTRAP_CLIENT_SECRET/);
  });
});

describe("local.settings.example.json", () => {
  it("names every setting the config reads, and parses as it stands", async () => {
    const { readFileSync } = await import("node:fs");
    const path = await import("node:path");
    const { configSchema } = await import("./config");
    const values = (
      JSON.parse(readFileSync(path.join(__dirname, "..", "local.settings.example.json"), "utf8")) as {
        Values: Record<string, string>;
      }
    ).Values;
    const keys = Object.keys(configSchema.shape);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.filter((k) => !(k in values))).toEqual([]);
    expect(() => parseConfig(values)).not.toThrow();
  });
});
