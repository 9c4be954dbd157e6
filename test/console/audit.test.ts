import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible, find, openArea, screenshot, signIn, textOf, useBrowser, waitForText } from "./browser";
import { adminToken, baseUrl, call } from "../http";
import { WebhookReceiver } from "../webhook-receiver";

describe("console › Audit log: every settings change, and each item's own entries on its page", () => {
  const session = useBrowser();
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.up());
  afterAll(() => receiver.down());

  it("shows a change in the Audit log area (who, what from what to what, which request) and in the item's Audit section", async () => {
    const token = await adminToken();
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token,
      body: { name: "Audited CRM", scopes: ["api.read"] },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.clientId as string;
    // A request id as long as a generated one, and changes with long unbroken values (a container's URL).
    const requestId = `console-audit-${randomUUID()}`;
    const exported = await call("POST", "/api/v1/settings/exports", {
      token,
      body: {
        name: "Audited export",
        dataType: "portfolios",
        format: "csv",
        schedule: { frequency: "daily", time: "06:00", timezone: "Europe/Zurich" },
        destination: {
          type: "blob",
          containerUrl: "https://contosofinanceexports.blob.core.windows.net/weekly-portfolio-exports-for-finance",
          prefix: "finance/portfolios/weekly/",
        },
        fileName: "portfolios_{date:yyyy-MM-dd}.{format}",
      },
    });
    expect(exported.status, exported.text).toBe(201);
    // A webhook's events are shown as JSON: one long word with no place to break.
    const hook = await call("POST", "/api/v1/settings/webhooks", {
      token,
      body: {
        url: receiver.url,
        events: ["portfolio.valued", "transaction.settled", "exception.created", "refresh_job.failed"],
        description: "Audited on-call",
      },
    });
    expect(hook.status, hook.text).toBe(201);
    const renamed = await call("PATCH", `/api/v1/settings/api-clients/${id}`, {
      token,
      headers: { "X-Request-Id": requestId },
      body: { name: "Audited CRM (EU)" },
    });
    expect(renamed.status, renamed.text).toBe(200);

    const { page, problems } = session();
    await signIn(page);
    await openArea(page, "Audit log");
    await waitForText(page, requestId);
    const log = await textOf(page);
    expect(log).toContain("Audited CRM (EU)");
    expect(log).toContain("name: Audited CRM → Audited CRM (EU)");
    expect(log).not.toContain(created.body.data.clientSecret);
    await expectAccessible(page);
    // The request id is read whole at 1280 px: within the table, which does not scroll sideways.
    await screenshot(page, "audit-log");
    const request = await page.$$eval(
      "main tbody tr",
      (trs, id) => {
        const cell = trs.map((tr) => tr.lastElementChild as HTMLElement).find((td) => td.textContent?.includes(id));
        const wrap = cell?.closest(".table-wrap") as HTMLElement;
        return {
          text: cell?.innerText.replace(/\s+/g, ""),
          inView:
            Math.ceil(cell?.getBoundingClientRect().right ?? Infinity) <=
              Math.floor(wrap.getBoundingClientRect().right) &&
            cell !== undefined &&
            cell.scrollWidth <= cell.clientWidth,
          tableScrolls: wrap.scrollWidth > wrap.clientWidth,
        };
      },
      requestId,
    );
    expect(request).toEqual({ text: requestId, inView: true, tableScrolls: false });

    // The item's page: its own entries, newest first, and nothing of other items.
    await page.goto(`${baseUrl()}/console#/api-clients/${encodeURIComponent(id)}`, { waitUntil: "networkidle0" });
    const section = await find(page, "region", "Audit");
    await waitForText(page, requestId, "section[aria-labelledby^='audit-']");
    const own = await section.evaluate((el) => (el as HTMLElement).innerText);
    expect(own.indexOf("updated")).toBeLessThan(own.indexOf("created"));
    expect(own).toContain("clientSecret: — → (redacted)");
    expect(own).not.toContain(created.body.data.clientSecret);
    expect(problems).toEqual([]);
  });
});
