import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { describe, expect, it } from "vitest";
import {
  compileFilePattern,
  feedCreateSchema,
  feedPatchSchema,
  feedSchema,
  feedWithPasswordSchema,
  patchedDefinition,
  toPublicFeed,
  type StoredFeed,
} from "./feed";

const csvFeed = {
  name: "Custodian positions",
  provider: "Custodian AG",
  dataType: "positions",
  format: "csv",
  filePattern: "positions_*.csv",
  options: {
    delimiter: ";",
    decimalSeparator: ",",
    thousandsSeparator: ".",
    dateFormat: "dd.MM.yyyy",
    encoding: "windows-1252",
    headerRow: 2,
  },
  mapping: {
    portfolioCode: "Depot",
    isin: "ISIN",
    date: "Stichtag",
    quantity: { source: "Bestand" },
    currency: { value: "EUR" },
  },
};

/** The issues of a failed parse as `path: message`, for readable assertions. */
function issues(result: {
  success: boolean;
  error?: { issues: { path: PropertyKey[]; message: string }[] };
}): Record<string, string> {
  expect(result.success).toBe(false);
  return Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.map(String).join("."), i.message]));
}

describe("feed definition", () => {
  it("accepts a full csv feed and fills the defaults", () => {
    const parsed = feedCreateSchema.parse(csvFeed);
    expect(parsed.status).toBe("testing");
    expect(parsed.validation).toEqual({ onRowError: "reject-file" });
    expect(parsed.mapping.currency).toEqual({ value: "EUR" });
    expect(feedCreateSchema.parse({ ...csvFeed, options: undefined }).options).toEqual({});
  });

  it("names a mapping target the data type does not have, even beside other problems", () => {
    const found = issues(
      feedCreateSchema.safeParse({ ...csvFeed, name: "", mapping: { ...csvFeed.mapping, foo: "Foo", price: "Kurs" } }),
    );
    expect(found["mapping.foo"]).toMatch(/not a field of a positions record/);
    expect(found["mapping.price"]).toMatch(/not a field of a positions record/);
    expect(found["name"]).toBeDefined();
    const extra = issues(feedCreateSchema.safeParse({ ...csvFeed, colour: "red", mapping: { foo: "Foo" } }));
    expect(Object.keys(extra).sort()).toEqual(["", "mapping.foo"]);
    for (const body of [null, [], "feed", 42]) expect(feedCreateSchema.safeParse(body).success).toBe(false);
  });

  it("names each option that does not apply to the format", () => {
    const json = issues(
      feedCreateSchema.safeParse({
        ...csvFeed,
        format: "json",
        mapping: { isin: "a.b" },
        options: { delimiter: ";", headerRow: 1, recordPath: "data.items" },
      }),
    );
    expect(json["options.delimiter"]).toMatch(/does not apply to json/);
    expect(json["options.headerRow"]).toMatch(/only to csv, xlsx/);
    expect(json["options.recordPath"]).toBeUndefined();
    const csv = issues(
      feedCreateSchema.safeParse({ ...csvFeed, options: { sheet: "Positions", msgTypes: ["AP"], recordPath: "a.b" } }),
    );
    expect(Object.keys(csv).sort()).toEqual(["options.msgTypes", "options.recordPath", "options.sheet"]);
    expect(
      issues(feedCreateSchema.safeParse({ ...csvFeed, format: "xlsx", options: { encoding: "utf-8", sheet: 2 } }))[
        "options.encoding"
      ],
    ).toMatch(/xlsx/);
    expect(
      feedCreateSchema.safeParse({
        ...csvFeed,
        format: "fix",
        mapping: { isin: "48" },
        options: { msgTypes: ["AP"], dateFormat: "yyyyMMdd" },
      }).success,
    ).toBe(true);
  });

  it("checks option values", () => {
    const found = issues(
      feedCreateSchema.safeParse({
        ...csvFeed,
        options: {
          delimiter: ":",
          decimalSeparator: ".",
          thousandsSeparator: ".",
          headerRow: 0,
          dateFormat: "dd.MM.yyyy HH:mm",
          encoding: "utf-16",
        },
      }),
    );
    expect(Object.keys(found).sort()).toEqual([
      "options.dateFormat",
      "options.delimiter",
      "options.encoding",
      "options.headerRow",
    ]);
    expect(found["options.dateFormat"]).toMatch(/"HH" is not a date token/);
    // The separators clash only once each is valid on its own.
    expect(
      issues(feedCreateSchema.safeParse({ ...csvFeed, options: { decimalSeparator: ",", thousandsSeparator: "," } }))[
        "options.thousandsSeparator"
      ],
    ).toMatch(/differ/);
    expect(
      issues(feedCreateSchema.safeParse({ ...csvFeed, format: "json", options: { msgTypes: [] } }))["options.msgTypes"],
    ).toBeDefined();
    expect(
      issues(feedCreateSchema.safeParse({ ...csvFeed, options: { dateFormat: "MM/yyyy" } }))["options.dateFormat"],
    ).toMatch(/day/);
  });

  it("validates mapping rules against the target's type and the format's sources", () => {
    const found = issues(
      feedCreateSchema.safeParse({
        ...csvFeed,
        mapping: {
          isin: { source: "ISIN", value: "DE0007164600" },
          portfolioCode: {},
          currency: { value: "EUR", map: { E: "EUR" } },
          quantity: { source: "Qty", format: "dd.MM.yyyy" },
          date: { source: "Date", multiply: 100 },
          costBasis: { source: "Cost", multiply: 0 },
        },
      }),
    );
    expect(found["mapping.isin"]).toMatch(/exactly one of source and value/);
    expect(found["mapping.portfolioCode"]).toMatch(/exactly one of source and value/);
    expect(found["mapping.currency.map"]).toMatch(/not to a constant/);
    expect(found["mapping.costBasis.multiply"]).toMatch(/must not be 0/);
    // Type checks against the record run once the rules are well formed.
    const typed = issues(
      feedCreateSchema.safeParse({
        ...csvFeed,
        mapping: { quantity: { source: "Qty", format: "dd.MM.yyyy" }, date: { source: "Date", multiply: 100 } },
      }),
    );
    expect(typed["mapping.quantity.format"]).toMatch(/quantity is not a date/);
    expect(typed["mapping.date.multiply"]).toMatch(/date is not a number/);
    const fix = issues(
      feedCreateSchema.safeParse({
        ...csvFeed,
        format: "fix",
        options: {},
        mapping: { isin: "ISIN", quantity: { source: "702[703=TQ].704" }, date: "715[x]" },
      }),
    );
    expect(fix["mapping.isin"]).toMatch(/not a FIX tag/);
    expect(fix["mapping.date"]).toMatch(/not a selector/);
    expect(fix["mapping.quantity.source"]).toBeUndefined();
    expect(issues(feedCreateSchema.safeParse({ ...csvFeed, mapping: {} }))["mapping"]).toMatch(/between 1 and 100/);
  });

  it("takes validation with a positive maxRejectedRows", () => {
    expect(
      feedCreateSchema.parse({ ...csvFeed, validation: { onRowError: "skip-row", maxRejectedRows: 5 } }).validation,
    ).toEqual({ onRowError: "skip-row", maxRejectedRows: 5 });
    expect(
      issues(feedCreateSchema.safeParse({ ...csvFeed, validation: { onRowError: "skip-row", maxRejectedRows: 0 } }))[
        "validation.maxRejectedRows"
      ],
    ).toBeDefined();
    expect(
      issues(feedCreateSchema.safeParse({ ...csvFeed, validation: { onRowError: "ignore" } }))["validation.onRowError"],
    ).toBeDefined();
  });
});

describe("filePattern", () => {
  it("refuses paths, parent references, negation and control characters", () => {
    for (const p of ["in/positions_*.csv", "..", "a..csv", "!*.tmp", "x\\y.csv", "a\u0000.csv", ""]) {
      expect(feedCreateSchema.safeParse({ ...csvFeed, filePattern: p }).success, p).toBe(false);
    }
  });

  it("matches base file names by glob, case-sensitively", () => {
    const matches = compileFilePattern("positions_*.{csv,txt}");
    expect(matches("positions_20240328.csv")).toBe(true);
    expect(matches("positions_20240328.txt")).toBe(true);
    expect(matches("POSITIONS_20240328.CSV")).toBe(false);
    expect(matches("prices_20240328.csv")).toBe(false);
    expect(matches("x/positions_1.csv")).toBe(false);
    expect(compileFilePattern("NAV_????????.xml")("NAV_20240328.xml")).toBe(true);
    expect(compileFilePattern("NAV_????????.xml")("NAV_2024032.xml")).toBe(false);
  });
});

/** An OpenSSH ed25519 public key line, built as ssh-keygen writes it. */
function ed25519Key(comment: string): string {
  const type = Buffer.from("ssh-ed25519");
  const key = Buffer.alloc(32, 7);
  const len = (b: Buffer) => Buffer.from([0, 0, 0, b.length]);
  return `ssh-ed25519 ${Buffer.concat([len(type), type, len(key), key]).toString("base64")} ${comment}`;
}

describe("feed PATCH", () => {
  const current = feedCreateSchema.parse(csvFeed);

  it("needs a field, and takes public keys in OpenSSH format", () => {
    expect(feedPatchSchema.safeParse({}).success).toBe(false);
    expect(feedPatchSchema.safeParse({ id: "x" }).success).toBe(false);
    expect(feedPatchSchema.parse({ sftp: { publicKeys: [ed25519Key("ops@provider")] } }).sftp?.publicKeys).toHaveLength(
      1,
    );
    const bad = issues(
      feedPatchSchema.safeParse({
        sftp: { publicKeys: ["ssh-ed25519 AAAA", ed25519Key("x").replace("ssh-ed25519 ", "ssh-rsa ")] },
      }),
    );
    expect(Object.keys(bad).sort()).toEqual(["sftp.publicKeys.0", "sftp.publicKeys.1"]);
  });

  it("checks the patched feed as a whole", () => {
    const toJson = patchedDefinition(current, { format: "json" });
    expect(issues(toJson)["options.delimiter"]).toMatch(/does not apply to json/);
    const toPrices = patchedDefinition(current, { dataType: "prices" });
    expect(issues(toPrices)["mapping.portfolioCode"]).toMatch(/not a field of a prices record/);
    const ok = patchedDefinition(current, { status: "live", sftp: { publicKeys: [] } });
    expect(ok.success && ok.data.status).toBe("live");
    expect(ok.success && ok.data.mapping).toEqual(current.mapping);
  });

  it("answers the public feed without the password hash", () => {
    const stored: StoredFeed = {
      ...current,
      id: "feed-1",
      sftp: { username: "feed-1", publicKeys: [], passwordHash: "scrypt$..." },
      createdAt: "2024-03-28T00:00:00.000Z",
      updatedAt: "2024-03-28T00:00:00.000Z",
    };
    const pub = toPublicFeed(stored, { host: "localhost", port: 2222 });
    expect(pub.sftp).toEqual({ host: "localhost", port: 2222, username: "feed-1", publicKeys: [] });
    expect(JSON.stringify(pub)).not.toContain("scrypt");
  });
});

describe("feed schemas in the OpenAPI document", () => {
  it("render as named components", () => {
    const registry = new OpenAPIRegistry();
    const json = (schema: Parameters<typeof registry.register>[1]) => ({ content: { "application/json": { schema } } });
    registry.registerPath({
      method: "post",
      path: "/feeds",
      request: { body: json(feedCreateSchema) },
      responses: { 201: { description: "created", ...json(feedWithPasswordSchema) } },
    });
    registry.registerPath({
      method: "patch",
      path: "/feeds/{id}",
      request: { body: json(feedPatchSchema) },
      responses: { 200: { description: "updated", ...json(feedSchema) } },
    });
    const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
    });
    const schemas = doc.components?.schemas ?? {};
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        "FeedCreate",
        "FeedPatch",
        "Feed",
        "FeedWithPassword",
        "FeedOptions",
        "FeedMapping",
        "FeedMappingRule",
        "FeedValidation",
      ]),
    );
    expect(JSON.stringify(schemas["FeedWithPassword"])).toContain("password");
  });
});
