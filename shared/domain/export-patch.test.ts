import { describe, expect, it } from "vitest";
import type { StoredExport } from "./export";
import { patchedExport } from "./export-patch";

const stored: StoredExport = {
  id: "ex_1",
  name: "Holdings",
  dataType: "transactions",
  format: "csv",
  schedule: { frequency: "weekly", time: "06:30", timezone: "Europe/London", dayOfWeek: 5 },
  destination: { type: "sftp", host: "h.example", port: 22, username: "u", path: "/out", password: "v1.sealed" },
  fileName: "tx_{date:yyyyMMdd}.csv",
  filters: { clientId: "c1", period: "previous-week" },
  status: "enabled",
  nextRunAt: "2026-11-27T06:30:00.000Z",
  createdAt: "2026-11-01T00:00:00.000Z",
  updatedAt: "2026-11-01T00:00:00.000Z",
};

describe("PATCH of an export: nested objects merged, then validated whole", () => {
  it("keeps the sealed secret of a destination of the same type sent without one", () => {
    const r = patchedExport(stored, { destination: { path: "/v2" } });
    expect(r).toMatchObject({
      success: true,
      keep: { password: "v1.sealed" },
      data: { destination: { type: "sftp", host: "h.example", path: "/v2" } },
    });
  });

  it("a new secret replaces the stored one (of either kind); a new type starts afresh", () => {
    expect(
      patchedExport(stored, {
        destination: { privateKey: "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n-----END OPENSSH PRIVATE KEY-----" },
      }),
    ).toMatchObject({ success: true, keep: {} });
    const blob = patchedExport(stored, {
      destination: { type: "blob", containerUrl: "https://a.blob.core.windows.net/exports" },
    });
    expect(blob).toMatchObject({
      success: true,
      keep: {},
      data: { destination: { type: "blob", containerUrl: "https://a.blob.core.windows.net/exports" } },
    });
    const bare = patchedExport(stored, { destination: { type: "blob" } });
    expect(bare.success).toBe(false);
  });

  it("a frequency change drops the day that no longer applies; null removes a field; filters: null clears them", () => {
    expect(patchedExport(stored, { schedule: { frequency: "daily" } })).toMatchObject({
      success: true,
      data: { schedule: { frequency: "daily", time: "06:30", timezone: "Europe/London" } },
    });
    const monthly = patchedExport(stored, { schedule: { frequency: "monthly", dayOfMonth: "last" } });
    expect(monthly.success && monthly.data.schedule).toEqual({
      frequency: "monthly",
      time: "06:30",
      timezone: "Europe/London",
      dayOfMonth: "last",
    });
    const noPeriod = patchedExport(stored, { filters: { period: null } });
    expect(noPeriod.success && noPeriod.data.filters).toEqual({ clientId: "c1" });
    const cleared = patchedExport(stored, { filters: null, dataType: "securities" });
    expect(cleared.success && cleared.data.filters).toEqual({});
  });

  it("names the field that the merged result gets wrong", () => {
    const r = patchedExport(stored, { dataType: "securities" });
    expect(r.success === false && r.issues.map((i) => i.path.join("."))).toEqual(["filters.period"]);
    const t = patchedExport(stored, { schedule: { timezone: "Nowhere/City" } });
    expect(t.success === false && t.issues.map((i) => i.path.join("."))).toEqual(["schedule.timezone"]);
  });
});
