import { describe, expect, it } from "vitest";
import { expectAccessible, find, openArea, signIn, textOf, useBrowser, waitForText } from "./browser";
import { adminToken, baseUrl, call } from "../http";

describe("console › Audit log: every settings change, and each item's own entries on its page", () => {
  const session = useBrowser();

  it("shows a change in the Audit log area (who, what from what to what, which request) and in the item's Audit section", async () => {
    const token = await adminToken();
    const created = await call("POST", "/api/v1/settings/api-clients", {
      token,
      body: { name: "Audited CRM", scopes: ["api.read"] },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.clientId as string;
    const requestId = `console-audit-${Date.now()}`;
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
