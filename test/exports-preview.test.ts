import { describe, expect, it } from "vitest";
import { adminToken, call, newClient } from "./http";

const weekly = { frequency: "weekly", dayOfWeek: 1, time: "06:30", timezone: "Europe/London" };
const local = (iso: string, timeZone: string): Record<string, string> =>
  Object.fromEntries(
    new Intl.DateTimeFormat("en-GB", {
      timeZone,
      weekday: "short",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(new Date(iso))
      .map((p) => [p.type, p.value]),
  );

describe("POST /api/v1/settings/exports/preview: an export's next runs and file names, before it is saved", () => {
  it("gives the next scheduled times (UTC) and each run's file name, rendered in the export's time zone", async () => {
    const token = await adminToken();
    const reply = await call("POST", "/api/v1/settings/exports/preview", {
      token,
      body: {
        dataType: "holdings",
        format: "xlsx",
        schedule: weekly,
        fileName: "{dataType}_{date:yyyyMMdd}_{time:HHmm}.{format}",
        count: 4,
      },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.data.timezone).toBe("Europe/London");
    const runs = reply.body.data.nextRuns as { at: string; fileName: string }[];
    expect(runs).toHaveLength(4);
    let previous = Date.now();
    for (const run of runs) {
      const parts = local(run.at, "Europe/London");
      expect(parts.weekday).toBe("Mon");
      expect(`${parts.hour}:${parts.minute}`).toBe("06:30");
      expect(run.fileName).toBe(`holdings_${parts.year}${parts.month}${parts.day}_0630.xlsx`);
      expect(Date.parse(run.at)).toBeGreaterThan(previous);
      previous = Date.parse(run.at);
    }
    // The token {exportId} of an export not saved yet is shown as it is; a saved one's id is used.
    const named = await call("POST", "/api/v1/settings/exports/preview", {
      token,
      body: {
        dataType: "prices",
        format: "csv",
        schedule: weekly,
        fileName: "{exportId}.{format}",
        exportId: "ex_123",
      },
    });
    expect(named.body.data.nextRuns[0].fileName).toBe("ex_123.csv");
  });

  it("agrees with the nextRunAt of an export created with the same schedule", async () => {
    const token = await adminToken();
    const body = {
      dataType: "securities",
      format: "json",
      schedule: { frequency: "monthly", dayOfMonth: "last", time: "23:45", timezone: "America/New_York" },
      fileName: "s_{date:yyyyMMdd}.json",
    };
    const preview = await call("POST", "/api/v1/settings/exports/preview", { token, body });
    const created = await call("POST", "/api/v1/settings/exports", {
      token,
      body: {
        ...body,
        name: "preview agreement",
        destination: { type: "blob", containerUrl: "https://example.blob.core.windows.net/exports" },
        status: "enabled",
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.nextRunAt).toBe(preview.body.data.nextRuns[0].at);
    await call("DELETE", `/api/v1/settings/exports/${created.body.data.id}`, { token });
  });

  it("refuses what New Export would refuse, naming the fields (422), and is System Settings (403 without api.admin)", async () => {
    const token = await adminToken();
    const reply = await call("POST", "/api/v1/settings/exports/preview", {
      token,
      body: {
        dataType: "holdings",
        format: "csv",
        schedule: { frequency: "weekly", time: "25:00", timezone: "Mars/Olympus" },
        fileName: "../{date:yyyy}",
      },
    });
    expect(reply.status).toBe(422);
    const fields = (reply.body.error.details as { field: string }[]).map((d) => d.field).sort();
    expect(fields).toEqual(["fileName", "schedule.dayOfWeek", "schedule.time", "schedule.timezone"]);
    const reader = await newClient(token, ["api.read", "api.write"]);
    expect(
      (
        await call("POST", "/api/v1/settings/exports/preview", {
          token: reader.token,
          body: { dataType: "holdings", format: "csv", schedule: weekly, fileName: "a.csv" },
        })
      ).status,
    ).toBe(403);
  });
});
