import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  byRole,
  click,
  expectAccessible,
  fill,
  find,
  openArea,
  pageTo,
  screenshot,
  signIn,
  textOf,
  useBrowser,
  waitForText,
} from "./browser";
import type { Page } from "puppeteer-core";
import { adminToken, call } from "../http";
import { WebhookReceiver } from "../webhook-receiver";

const XSS = `<img src=x onerror="window.__xss=1"> treasury team`;

/** Opens the disclosure (a `<summary>`) with this text in the page's main region. */
async function open(page: Page, summary: string): Promise<void> {
  const handle = await page.waitForSelector(
    `::-p-xpath(//main//summary[normalize-space()=${JSON.stringify(summary)}])`,
  );
  await handle!.click();
}

/** Sets the date field labelled `label` (a date input takes no typing the same way in every locale). */
async function setDate(page: Page, label: string, value: string): Promise<void> {
  const id = await page.$eval(`::-p-xpath(//main//label[normalize-space()=${JSON.stringify(label)}])`, (l) =>
    l.getAttribute("for"),
  );
  await page.$eval(
    `[id="${id}"]`,
    (el, v) => {
      (el as HTMLInputElement).value = v;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    value,
  );
}

describe("console › Webhooks: Add Webhook, the test event, the secret once, deliveries, Retry and Recover", () => {
  const session = useBrowser();
  const receiver = new WebhookReceiver();
  const failing = new WebhookReceiver();
  let secret = "";

  const accepted = () => ({
    status: 200,
    headers: { "x-receiver": "console test" },
    body: "accepted by the test receiver",
  });
  beforeAll(async () => {
    await receiver.up();
    receiver.answer = accepted;
    await failing.up();
    failing.answer = () => ({ status: 500 });
  });
  afterAll(async () => {
    await receiver.down();
    await failing.down();
  });

  it("shows the endpoint's refusal of the test event beside Endpoint URL, keeping what was typed", async () => {
    const { page } = session();
    await signIn(page);
    await openArea(page, "Webhooks");
    await click(page, "button", "Add Webhook");
    const dialog = await find(page, "dialog", "Add Webhook");
    await fill(dialog, "Endpoint URL", failing.url);
    await click(dialog, "checkbox", "portfolio.valued");
    await click(dialog, "button", "Save");
    const url = await dialog.waitForSelector('input[aria-invalid="true"]');
    expect(await url?.evaluate((el) => el.id)).toBe(
      await dialog.$eval(byRole("textbox", "Endpoint URL"), (el) => el.id),
    );
    // The message is the field's description, read with it; focus is on it, ready for a correction.
    const description = await page.evaluate(() => {
      const input = document.activeElement as HTMLInputElement;
      return {
        value: input.value,
        text: (input.getAttribute("aria-describedby") ?? "")
          .split(" ")
          .map((id) => document.getElementById(id)?.textContent)
          .join(" "),
      };
    });
    expect(description.value).toBe(failing.url);
    expect(description.text).toContain("the endpoint answered 500");
    expect(failing.received.map((r) => r.envelope.event)).toEqual(["webhook.test"]);
    expect(await dialog.$eval(byRole("checkbox", "portfolio.valued"), (el) => (el as HTMLInputElement).checked)).toBe(
      true,
    );
    await screenshot(page, "webhooks-refused");
    await click(dialog, "button", "Cancel");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
  });

  it("adds a webhook: the signed test event arrives, the page shows its outcome and the signing secret once", async () => {
    const { page, problems } = session();
    await click(page, "button", "Add Webhook");
    const dialog = await find(page, "dialog", "Add Webhook");
    await expectAccessible(page);
    await fill(dialog, "Endpoint URL", receiver.url);
    await click(dialog, "checkbox", "portfolio.valued");
    await click(dialog, "checkbox", "refresh_job.failed");
    // Each event comes with an example payload.
    await page.$$eval("dialog details summary", (s) => s.forEach((e) => e.click()));
    expect(await textOf(page, "dialog")).toContain('"event": "refresh_job.failed"');
    await fill(dialog, "Description", XSS);
    await screenshot(page, "webhooks-add");
    await click(dialog, "button", "Save");

    const added = await find(page, "dialog", "Webhook added");
    // Focus moves to the outcome, read first.
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("success");
    secret = await added.$eval(byRole("textbox", "Signing secret"), (el) => (el as HTMLInputElement).value);
    expect(secret).toMatch(/^whsec_/);
    expect(await textOf(page, "dialog")).toContain("answered the signed webhook.test event with a 2xx");
    // The test event reached the receiver, signed with the secret the page shows.
    const test = receiver.received.find((r) => r.envelope.event === "webhook.test");
    expect(test).toBeDefined();
    expect(() => new Webhook(secret).verify(test?.body ?? "", test?.headers as Record<string, string>)).not.toThrow();
    await screenshot(page, "webhooks-secret");
    await click(added, "button", "Done");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    // Done leads to the new webhook's page, its heading focused.
    await find(page, "heading", receiver.url);
    await page.waitForFunction(() => document.activeElement?.tagName === "H1");

    // The description is text (no element made of it, nothing run); the secret is not shown again.
    await waitForText(page, XSS);
    expect(await textOf(page)).not.toContain(secret);
    expect(await page.$$eval("main img", (imgs) => imgs.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await expectAccessible(page);
    expect(problems).toEqual([]);
  });

  it("shows the creation's webhook.test in the log: its subject, what was sent and what came back; filters by day", async () => {
    const { page } = session();
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    const row = await page.waitForSelector("::-p-xpath(//main//tr[contains(., 'webhook.test')])");
    expect(await row?.evaluate((tr) => (tr as HTMLElement).innerText)).toContain(id); // the subject: this webhook
    await click(row!, "button", "Attempts");
    await open(page, "Request sent (attempt 1)");
    await waitForText(page, "webhook-signature");
    const sent = await textOf(page, "main ol.attempts");
    const test = receiver.received.find((r) => r.envelope.event === "webhook.test");
    expect(sent).toContain(String(test?.headers["webhook-id"]));
    expect(sent).toContain(`"webhookId": "${id}"`);
    expect(sent).not.toContain(secret);
    await open(page, "Response received (attempt 1)");
    await waitForText(page, "accepted by the test receiver");
    expect(await textOf(page, "main ol.attempts")).toContain("x-receiver");
    await screenshot(page, "webhook-attempts", "#deliveries-heading");
    await expectAccessible(page);

    // The days they were created: nothing from tomorrow on, this one from today.
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toLocaleDateString("en-CA");
    await setDate(page, "Created from", day(1));
    await waitForText(page, "No deliveries match these filters.");
    await setDate(page, "Created from", day(0));
    await page.waitForSelector("::-p-xpath(//main//tr[contains(., 'webhook.test')])");
    await setDate(page, "Created from", "");
  });

  it("lists the webhook among the others, its description as text", async () => {
    const { page } = session();
    await click(page, "link", "All webhooks");
    await find(page, "heading", "Webhooks");
    await pageTo(page, "Webhooks", receiver.url);
    expect(await textOf(page)).toContain(XSS);
    expect(await page.$$eval("main img", (imgs) => imgs.length)).toBe(0);
    await expectAccessible(page);
    await screenshot(page, "webhooks");
  });

  it("lists a failed delivery with the endpoint's answer; Retry sends it again and it succeeds", async () => {
    const { page } = session();
    await click(page, "link", receiver.url);
    await find(page, "heading", receiver.url);
    // The endpoint is gone (410): the test delivery fails and the service disables the webhook.
    receiver.answer = () => ({ status: 410 });
    await click(page, "button", "Send test event");
    await waitForText(page, "Test event failed: HTTP 410");
    // The page says it is disabled, and why, above everything else.
    await find(page, "heading", "This webhook is disabled");
    expect(await textOf(page, ".banner")).toContain("Disabled because the endpoint answered 410 Gone");
    expect(await textOf(page, "dl.details")).toContain("Disabled because");
    await screenshot(page, "webhook-disabled");
    await expectAccessible(page);
    await click(page, "button", "Enable");
    await waitForText(page, "Webhook enabled");
    // Enabled: no banner, and "Disabled because" is gone.
    await page.waitForFunction(() => document.querySelector("main .banner") === null);
    expect(await textOf(page)).not.toContain("Disabled because");

    receiver.answer = () => ({ status: 200 });
    await (await find(page, "combobox", "Status")).select("failed");
    const failedRow = await page.waitForSelector("::-p-xpath(//main//tr[.//button[normalize-space()='Retry']])");
    expect(await failedRow?.evaluate((tr) => (tr as HTMLElement).innerText)).toContain("HTTP 410");
    await screenshot(page, "webhook-deliveries");
    await expectAccessible(page);
    const before = receiver.received.length;
    await click(failedRow!, "button", "Retry");
    await waitForText(page, "sent again");
    await (await find(page, "combobox", "Status")).select("");
    // The retried delivery went out again (same webhook-id) and is now succeeded after two attempts.
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll<HTMLElement>("main tbody tr")).some(
          (tr) => tr.innerText.includes("succeeded") && tr.innerText.includes("HTTP 200") && /\t2\t/.test(tr.innerText),
        ),
      { timeout: 20_000 },
    );
    expect(receiver.received.length).toBeGreaterThan(before);
    const retried = receiver.received.at(-1);
    expect(receiver.received.filter((r) => r.headers["webhook-id"] === retried?.headers["webhook-id"]).length).toBe(2);
    // Each attempt's answer, oldest first.
    const row = await page.waitForSelector(
      "::-p-xpath(//main//tr[contains(., 'HTTP 200')][.//td[normalize-space()='2']])",
    );
    await click(row!, "button", "Attempts");
    await page.waitForSelector("main ol.attempts li:nth-child(2)");
    const attempts = await page.$$eval("main ol.attempts li", (lis) => lis.map((li) => li.textContent ?? ""));
    expect(attempts[0]).toContain("HTTP 410");
    expect(attempts[1]).toContain("HTTP 200");
  });

  it("Retry now sends a pending delivery at once, ahead of its schedule", async () => {
    const { page } = session();
    receiver.answer = (envelope, received) =>
      received.filter((r) => r.envelope.id === envelope.id).length === 1
        ? { status: 503, headers: { "Retry-After": "120" } }
        : accepted();
    await click(page, "button", "Send test event");
    await waitForText(page, "not accepted yet (it will be retried)");
    const pendingRow = await page.waitForSelector("::-p-xpath(//main//tr[.//button[normalize-space()='Retry now']])");
    expect(await pendingRow?.evaluate((tr) => (tr as HTMLElement).innerText)).toContain("HTTP 503");
    const before = receiver.received.length;
    await click(pendingRow!, "button", "Retry now");
    await waitForText(page, "sent now; its retry schedule continues after it");
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(before + 1);
    const id = receiver.received.at(-1)?.headers["webhook-id"];
    expect(receiver.received.filter((r) => r.headers["webhook-id"] === id)).toHaveLength(2);
    await page.waitForFunction(
      () => !Array.from(document.querySelectorAll("main button")).some((b) => b.textContent?.trim() === "Retry now"),
      { timeout: 15_000 },
    );
  });

  it("a disabled webhook is named in a banner above the list; enabled again, Recover sends its failed deliveries again", async () => {
    const { page } = session();
    receiver.answer = () => ({ status: 410 });
    await click(page, "button", "Send test event");
    await waitForText(page, "Test event failed: HTTP 410");
    const gone = receiver.received.at(-1)?.headers["webhook-id"];
    await click(page, "link", "All webhooks");
    // The detail page has its own "This webhook is disabled" banner: wait for the list first.
    await find(page, "heading", "Webhooks");
    const banner = await page.waitForSelector(
      "::-p-xpath(//main//section[contains(@class, 'banner')][h2[not(starts-with(normalize-space(), 'This'))]])",
    );
    expect(await banner!.evaluate((b) => b.querySelector("h2")?.textContent)).toMatch(
      /^\d+ webhooks? (is|are) disabled$/,
    );
    expect(await textOf(page, "main .banner")).toContain(
      `${receiver.url}: disabled because the endpoint answered 410 Gone`,
    );
    await screenshot(page, "webhooks-disabled");
    await expectAccessible(page);

    await click(banner!, "link", receiver.url);
    await find(page, "heading", receiver.url);
    receiver.answer = accepted;
    await click(page, "button", "Enable webhook");
    await waitForText(page, "Webhook enabled");
    await click(page, "button", "Recover");
    const dialog = await find(page, "dialog", "Recover failed deliveries");
    await expectAccessible(page);
    await screenshot(page, "webhook-recover");
    await click(dialog, "button", "Send them again");
    await page.waitForFunction(() => document.querySelector("dialog") === null);
    await waitForText(page, "being sent again, oldest first");
    expect(await textOf(page, "main .notice")).toMatch(
      /^\d+ failed deliver(y|ies) since \d{4}-\d\d-\d\d (is|are) being sent again/,
    );
    // The failed delivery went out again with its own webhook-id, and succeeded.
    await expect
      .poll(() => receiver.received.filter((r) => r.headers["webhook-id"] === gone).length, { timeout: 15_000 })
      .toBe(2);
    const webhookId = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    const token = await adminToken();
    await expect
      .poll(
        async () =>
          (await call("GET", `/api/v1/settings/webhooks/${webhookId}/deliveries/${String(gone)}`, { token })).body.data
            .status,
        { timeout: 15_000 },
      )
      .toBe("succeeded");
  });

  it("deletes the webhook after a confirmation", async () => {
    const { page } = session();
    await click(page, "button", "Delete");
    const confirm = await find(page, "dialog", "Delete webhook");
    expect(await confirm.evaluate((d) => (d as HTMLElement).innerText)).toContain(receiver.url);
    const id = await page.evaluate(() => decodeURIComponent(location.hash.split("/")[2] ?? ""));
    await click(confirm, "button", "Delete webhook");
    await find(page, "heading", "Webhooks");
    expect((await call("GET", `/api/v1/settings/webhooks/${id}`, { token: await adminToken() })).status).toBe(404);
  });
});
