import { CosmosClient } from "@azure/cosmos";
import { beforeAll, describe, expect, it } from "vitest";
import { adminToken, call, cosmosEndpoint, newClient, type Reply } from "./http";
import { COSMOS_KEY } from "./investment-fixtures";

const BASE = "/api/v1/settings/exports";
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const PASSWORD = "customer-sftp-password-Zq8!";
const PRIVATE_KEY =
  "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n";

const sftpExport = (): Record<string, unknown> => ({
  name: "Holdings to the custodian",
  dataType: "holdings",
  format: "csv",
  schedule: { frequency: "daily", time: "06:30", timezone: "Europe/London" },
  destination: {
    type: "sftp",
    host: "sftp.example.com",
    username: "ids",
    password: PASSWORD,
    path: "/outbound/holdings",
  },
  fileName: "holdings_{date:yyyyMMdd}.csv",
});

/** The body with `path` (dotted) set to `value`; undefined removes it. */
function withField(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const keys = path.split(".");
  let node = copy;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  const last = keys.at(-1) ?? "";
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

describe("System settings › exports", () => {
  let token: string;
  const create = (body: unknown): Promise<Reply> => call("POST", BASE, { token, body });
  const patch = (id: string, body: unknown): Promise<Reply> => call("PATCH", `${BASE}/${id}`, { token, body });
  const storedDoc = async (id: string): Promise<Record<string, any>> => {
    const cosmos = new CosmosClient({
      endpoint: cosmosEndpoint(),
      key: COSMOS_KEY,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    const { resource } = await cosmos.database("investment-data").container("settings").item(id, "export").read();
    return resource;
  };

  beforeAll(async () => {
    token = await adminToken();
  });

  it("creates an SFTP export with nextRunAt in UTC from the local time; the password is never answered and sealed at rest", async () => {
    const reply = await create(sftpExport());
    expect(reply.status, reply.text).toBe(201);
    const data = reply.body.data;
    expect(data).toEqual({
      id: expect.stringMatching(/^ex_/),
      name: "Holdings to the custodian",
      dataType: "holdings",
      format: "csv",
      schedule: { frequency: "daily", time: "06:30", timezone: "Europe/London" },
      destination: {
        type: "sftp",
        host: "sftp.example.com",
        port: 22,
        username: "ids",
        path: "/outbound/holdings",
        hasPassword: true,
        hasPrivateKey: false,
      },
      fileName: "holdings_{date:yyyyMMdd}.csv",
      filters: {},
      status: "enabled",
      nextRunAt: iso,
      lastRun: null,
      createdAt: iso,
      updatedAt: iso,
    });
    expect(reply.headers.get("location")).toBe(`${BASE}/${data.id}`);
    // 06:30 in London is 05:30 or 06:30 UTC, within the next day.
    const next = new Date(data.nextRunAt);
    expect(next.getTime()).toBeGreaterThan(Date.now());
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000 + 3600_000);
    expect(next.toISOString().slice(11, 16)).toMatch(/^0[56]:30$/);
    expect(reply.text).not.toContain(PASSWORD);

    for (const read of [
      await call("GET", `${BASE}/${data.id}`, { token }),
      await call("GET", `${BASE}?pageSize=200`, { token }),
    ]) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(PASSWORD);
      expect(read.text).not.toMatch(/"password"|"privateKey"/);
    }
    expect((await call("GET", `${BASE}/${data.id}`, { token })).body.data).toEqual(data);
    const stored = await storedDoc(data.id);
    expect(stored.destination.password).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it("creates a blob export with a private key-less destination, weekly and monthly schedules", async () => {
    const weekly = await create({
      ...sftpExport(),
      dataType: "transactions",
      format: "json",
      schedule: { frequency: "weekly", time: "23:15", dayOfWeek: 7, timezone: "America/New_York" },
      destination: {
        type: "blob",
        containerUrl: "https://custacct.blob.core.windows.net/ids-exports",
        prefix: "weekly/",
      },
      filters: { period: "previous-week", portfolioIds: ["pf_1"] },
    });
    expect(weekly.status, weekly.text).toBe(201);
    expect(weekly.body.data.destination).toEqual({
      type: "blob",
      containerUrl: "https://custacct.blob.core.windows.net/ids-exports",
      prefix: "weekly/",
    });
    expect(weekly.body.data.filters).toEqual({ period: "previous-week", portfolioIds: ["pf_1"] });
    const local = new Intl.DateTimeFormat("en-US", {
      timeZone: "America/New_York",
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(new Date(weekly.body.data.nextRunAt));
    expect(local).toBe("Sun 23:15");

    const monthly = await create({
      ...sftpExport(),
      schedule: { frequency: "monthly", time: "00:05", dayOfMonth: "last" },
      destination: { type: "sftp", host: "10.1.2.3", port: 2022, username: "u", privateKey: PRIVATE_KEY, path: "out" },
    });
    expect(monthly.status, monthly.text).toBe(201);
    expect(monthly.body.data.schedule.timezone).toBe("UTC");
    const next = new Date(monthly.body.data.nextRunAt);
    expect(next.getUTCDate()).toBe(new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 0)).getUTCDate());
    expect(next.toISOString().slice(11, 16)).toBe("00:05");
    expect(monthly.body.data.destination).toMatchObject({ hasPassword: false, hasPrivateKey: true, port: 2022 });
    expect(monthly.text).not.toContain("OPENSSH PRIVATE KEY");
  });

  it.each([
    ["name", undefined],
    ["dataType", "orders"],
    ["format", "xml"],
    ["schedule.frequency", "hourly"],
    ["schedule.time", "25:00"],
    ["schedule.timezone", "Europe/Atlantis"],
    ["schedule.dayOfWeek", 3],
    ["schedule.dayOfMonth", 5],
    ["destination.type", "ftp"],
    ["destination.host", "bad host/name"],
    ["destination.host", "[::1]"],
    ["destination.host", "[2001:db8::1]"],
    ["destination.host", "2130706433"],
    ["destination.host", "0x7f000001"],
    ["destination.port", 70000],
    ["destination.path", "/out/../etc"],
    ["destination.password", undefined],
    ["destination.privateKey", "not a key"],
    ["destination.hostKeyFingerprint", "MD5:ab:cd"],
    ["fileName", "../holdings.csv"],
    ["fileName", "out/holdings.csv"],
    ["fileName", "out\\holdings.csv"],
    ["fileName", "holdings\u0007.csv"],
    ["fileName", "holdings_{portfolio}.csv"],
    ["fileName", "holdings_{date:yyyy/MM}.csv"],
    ["fileName", "{date:.}{time:.}"],
    ["fileName", "{date:.}"],
    ["fileName", "holdings_{time:QQQQ}.csv"],
    ["fileName", "{date:yyyy.}{time:.MM}.csv"],
    ["filters.period", "previous-day"],
    ["filters.portfolioIds", []],
    ["filters.status", "settled"],
    ["status", "paused"],
    ["unexpected", true],
  ])("422 on %s = %j, with a detail naming it", async (field, value) => {
    const reply = await create(withField(sftpExport(), field, value));
    expect(reply.status, reply.text).toBe(422);
    expect(reply.body.error.code).toBe("VALIDATION_ERROR");
    const expected =
      field === "unexpected" ? "body" : field === "destination.password" ? "destination.password" : field;
    expect(reply.body.error.details.map((d: { field: string }) => d.field)).toContain(expected);
    expect(reply.text).not.toContain(PASSWORD);
  });

  it("422 on the impossible combinations: weekly without a day, monthly on the 29th, both secrets, blob URLs with a SAS token or plain http", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [withField(sftpExport(), "schedule", { frequency: "weekly", time: "06:00" }), "schedule.dayOfWeek"],
      [
        withField(sftpExport(), "schedule", { frequency: "monthly", time: "06:00", dayOfMonth: 29 }),
        "schedule.dayOfMonth",
      ],
      [withField(sftpExport(), "schedule", { frequency: "monthly", time: "06:00" }), "schedule.dayOfMonth"],
      [withField(sftpExport(), "destination.privateKey", PRIVATE_KEY), "destination.privateKey"],
      [
        withField(sftpExport(), "destination", {
          type: "blob",
          containerUrl: "https://a.blob.core.windows.net/c1?sv=2024&sig=x",
        }),
        "destination.containerUrl",
      ],
      [
        withField(sftpExport(), "destination", {
          type: "blob",
          containerUrl: "http://a.blob.core.windows.net/exports",
        }),
        "destination.containerUrl",
      ],
      // Only Azure blob endpoints ever get the service's token: no other host, address or look-alike.
      [
        withField(sftpExport(), "destination", { type: "blob", containerUrl: "https://attacker.example/stolen" }),
        "destination.containerUrl",
      ],
      [
        withField(sftpExport(), "destination", { type: "blob", containerUrl: "https://169.254.169.254/metadata" }),
        "destination.containerUrl",
      ],
      [
        withField(sftpExport(), "destination", { type: "blob", containerUrl: "http://10.0.0.1/exports" }),
        "destination.containerUrl",
      ],
      [
        withField(sftpExport(), "destination", {
          type: "blob",
          containerUrl: "https://acct.blob.core.windows.net.attacker.example/exports",
        }),
        "destination.containerUrl",
      ],
      [
        withField(sftpExport(), "destination", {
          type: "blob",
          containerUrl: "https://a.blob.core.windows.net/exports",
          prefix: "../x/",
        }),
        "destination.prefix",
      ],
      [
        withField(sftpExport(), "destination", {
          type: "blob",
          containerUrl: "https://a.blob.core.windows.net/exports",
          password: "x",
        }),
        "destination",
      ],
    ];
    for (const [body, field] of cases) {
      const reply = await create(body);
      expect(reply.status, `${field}: ${reply.text}`).toBe(422);
      expect(
        reply.body.error.details.map((d: { field: string }) => d.field),
        reply.text,
      ).toContain(field);
    }
  });

  it("PATCH merges nested objects: the stored secret stays unless one is sent; a changed type must bring what it needs", async () => {
    const { id, nextRunAt } = (await create(sftpExport())).body.data;
    const sealed = (await storedDoc(id)).destination.password as string;

    const moved = await patch(id, {
      destination: {
        path: "/outbound/v2",
        hostKeyFingerprint: `SHA256:${Buffer.alloc(32, 7).toString("base64").replace(/=+$/, "")}`,
      },
      name: "Renamed",
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.data).toMatchObject({
      name: "Renamed",
      nextRunAt,
      destination: { type: "sftp", host: "sftp.example.com", path: "/outbound/v2", hasPassword: true },
    });
    expect((await storedDoc(id)).destination.password).toBe(sealed);

    const weeklyWithoutDay = await patch(id, { schedule: { frequency: "weekly" } });
    expect(weeklyWithoutDay.status).toBe(422);
    expect(weeklyWithoutDay.body.error.details).toEqual([
      { field: "schedule.dayOfWeek", message: "is required for a weekly schedule" },
    ]);
    const weekly = await patch(id, { schedule: { frequency: "weekly", dayOfWeek: 1 } });
    expect(weekly.status, weekly.text).toBe(200);
    expect(weekly.body.data.schedule).toEqual({
      frequency: "weekly",
      time: "06:30",
      timezone: "Europe/London",
      dayOfWeek: 1,
    });
    expect(
      new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/London", weekday: "short" }).format(
        new Date(weekly.body.data.nextRunAt),
      ),
    ).toBe("Mon");
    const daily = await patch(id, { schedule: { frequency: "daily" } });
    expect(daily.body.data.schedule).toEqual({ frequency: "daily", time: "06:30", timezone: "Europe/London" });

    const keyNow = await patch(id, { destination: { privateKey: PRIVATE_KEY } });
    expect(keyNow.body.data.destination).toMatchObject({ hasPassword: false, hasPrivateKey: true });

    const blobBare = await patch(id, { destination: { type: "blob" } });
    expect(blobBare.status).toBe(422);
    expect(blobBare.body.error.details.map((d: { field: string }) => d.field)).toContain("destination.containerUrl");
    const blob = await patch(id, {
      destination: { type: "blob", containerUrl: "https://custacct.blob.core.windows.net/drop" },
    });
    expect(blob.status, blob.text).toBe(200);
    expect(blob.body.data.destination).toEqual({
      type: "blob",
      containerUrl: "https://custacct.blob.core.windows.net/drop",
    });
    expect((await storedDoc(id)).destination).toEqual({
      type: "blob",
      containerUrl: "https://custacct.blob.core.windows.net/drop",
    });

    const backWithoutSecret = await patch(id, { destination: { type: "sftp", host: "h", username: "u", path: "/" } });
    expect(backWithoutSecret.status).toBe(422);
    expect(backWithoutSecret.body.error.details).toEqual([
      { field: "destination.password", message: "an SFTP destination needs a password or a privateKey" },
    ]);

    const filtered = await patch(id, { dataType: "prices", filters: { period: "all" } });
    expect(filtered.body.data.filters).toEqual({ period: "all" });
    const wrongType = await patch(id, { dataType: "securities" });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.error.details[0].field).toBe("filters.period");
    expect((await patch(id, { dataType: "securities", filters: null })).body.data.filters).toEqual({});

    const disabled = await patch(id, { status: "disabled" });
    expect(disabled.body.data).toMatchObject({ status: "disabled", nextRunAt: null });
    const enabled = await patch(id, { status: "enabled" });
    expect(enabled.body.data.nextRunAt).toEqual(iso);

    expect((await patch(id, {})).status).toBe(422);
    expect((await patch(id, { fileName: "a/b.csv" })).body.error.details[0].field).toBe("fileName");
    expect((await patch("ex_missing", { name: "x" })).status).toBe(404);
  });

  it("DELETE removes it (204, then 404); runs of an unknown export are 404; a read-only client is 403", async () => {
    const { id } = (await create(sftpExport())).body.data;
    expect((await call("DELETE", `${BASE}/${id}`, { token })).status).toBe(204);
    expect((await call("GET", `${BASE}/${id}`, { token })).status).toBe(404);
    expect((await call("DELETE", `${BASE}/${id}`, { token })).status).toBe(404);
    expect((await call("GET", `${BASE}/${id}/runs`, { token })).status).toBe(404);
    expect((await call("POST", `${BASE}/${id}/run`, { token })).status).toBe(404);
    const reader = await newClient(token, ["api.read", "api.write"]);
    expect((await call("GET", BASE, { token: reader.token })).status).toBe(403);
    expect((await call("POST", BASE, { token: reader.token, body: sftpExport() })).status).toBe(403);
  });
});
