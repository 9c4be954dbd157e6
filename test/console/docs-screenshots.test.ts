import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BlobServiceClient } from "@azure/storage-blob";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { baseUrl, call, storageConnectionString, tokenFor, useOwnRuntime } from "../http";
import { root, tempDir } from "../runtime";
import { WebhookReceiver } from "../webhook-receiver";
import { choose, click, fill, find, intercept, useBrowser, waitForText } from "./browser";

/**
 * The screenshots of docs/console/ (one per area, 1280×800, and a narrow window), taken on a runtime
 * of their own seeded with a plausible organisation's settings. Not part of `npm test`: run
 * `CONSOLE_SCREENSHOTS=1 npx vitest run test/console/docs-screenshots.test.ts` after a change to the
 * console (with `npm run build:local` first), then look at them.
 */
const DOCS = join(root, "docs", "console");
const ADMIN = { id: "local-admin", secret: "local-admin-secret-change-me" };
const examples = join(root, "examples", "feeds");

describe.runIf(process.env.CONSOLE_SCREENSHOTS === "1")("docs/console/ screenshots", () => {
  useOwnRuntime({ BOOTSTRAP_CLIENT_ID: ADMIN.id, BOOTSTRAP_CLIENT_SECRET: ADMIN.secret });
  const session = useBrowser();
  const receiver = new WebhookReceiver();
  const ids = { export: "", feed: "", blobSource: "", job: "" };
  // The receiver answers on any path: one per webhook, as each would be its own service.
  const hook = (path: string): string => receiver.url.replace(/\/hook$/, `/hooks/${path}`);

  const scratch = tempDir("ids-console-docs-");
  beforeAll(async () => {
    await receiver.up();
    // The on-call service is down (its events fail), so the Overview has a failing webhook to show.
    receiver.answer = (envelope) => ({
      status: ["exception.created", "refresh_job.failed"].includes(envelope.event) ? 503 : 200,
      headers: { "content-type": "application/json" },
      body: '{"received":true}',
    });
  });
  afterAll(async () => {
    await receiver.down();
    scratch.remove();
  });

  it("seeds the settings an organisation would have", async () => {
    const token = await tokenFor(ADMIN.id, ADMIN.secret);
    const api = async (method: string, path: string, body?: unknown): Promise<{ data: { id: string } }> => {
      const reply = await call(method, path, { token, body });
      expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300);
      return reply.body as { data: { id: string } };
    };
    for (const [path, events, description] of [
      ["treasury", ["portfolio.valued", "transaction.settled"], "Treasury dashboard"],
      ["data-ops", ["exception.created", "refresh_job.failed"], "Data operations on-call"],
      ["crm", ["portfolio.valued"], "CRM client portal"],
    ] as const)
      await api("POST", "/api/v1/settings/webhooks", { url: hook(path), events, description });
    for (const [name, scopes, tier] of [
      ["Power BI (finance)", ["api.read"], "standard"],
      ["Custodian upload job", ["api.read", "api.write"], "premium"],
      ["Client portal", ["api.read"], "premium"],
    ] as const)
      await api("POST", "/api/v1/settings/api-clients", { name, scopes, tier });

    const feeds = JSON.parse(readFileSync(join(examples, "feeds.json"), "utf8")) as { id: string; feed: object }[];
    for (const f of feeds) {
      const created = await api("POST", "/api/v1/settings/feeds", {
        ...f.feed,
        status: f.id === "securities-csv" ? "live" : "testing",
      });
      if (f.id === "securities-csv") ids.feed = created.data.id;
    }
    // A blob source reading a custodian's container into a skip-row feed: one good file, one with a bad row.
    const custodian = await api("POST", "/api/v1/settings/feeds", {
      name: "Custodian security master",
      provider: "Global Custody Bank",
      dataType: "securities",
      format: "csv",
      filePattern: "securities-*.csv",
      options: { delimiter: ";" },
      mapping: {
        isin: "ISIN",
        name: "Name",
        currency: "Currency",
        assetClass: { source: "Asset class", map: { Aktie: "equity", Anleihe: "bond", Fonds: "fund" } },
      },
      validation: { onRowError: "skip-row" },
      status: "live",
    });
    const blobs = BlobServiceClient.fromConnectionString(storageConnectionString());
    const container = blobs.getContainerClient("custodian-drop");
    await container.createIfNotExists();
    const good = readFileSync(join(examples, "csv", "securities-20241231.csv"), "utf8");
    await container.getBlockBlobClient("daily/securities-20261124.csv").upload(good, Buffer.byteLength(good));
    const bad = good.replace("US0378331005", "US0378331006");
    await container.getBlockBlobClient("daily/securities-20261125.csv").upload(bad, Buffer.byteLength(bad));
    const containerUrl = (name: string): string => `${blobs.url.replace(/\/$/, "")}/${name}`;
    const source = await api("POST", "/api/v1/settings/blob-sources", {
      name: "Global Custody daily drop",
      containerUrl: containerUrl("custodian-drop"),
      prefix: "daily/",
      filePattern: "securities-*.csv",
      feedId: custodian.data.id,
      schedule: { every: "1d", at: "05:30" },
    });
    ids.blobSource = source.data.id;
    await api("POST", `/api/v1/settings/blob-sources/${ids.blobSource}/run`);
    // A file dropped for the custodian feed whose currency column is named otherwise: the job fails and
    // the file is quarantined (the jobs page offers Download file and Process again).
    const misnamed = [
      "ISIN;Name;Asset class;Ccy",
      "FR0000120271;TotalEnergies SE;Aktie;EUR",
      "DE0007164600;SAP SE;Aktie;EUR",
      "",
    ].join("\n");
    await blobs.getContainerClient("inbound").createIfNotExists();
    await blobs
      .getContainerClient("inbound")
      .getBlockBlobClient(`${custodian.data.id}/securities-20261126.csv`)
      .upload(misnamed, Buffer.byteLength(misnamed));
    ids.job = await vi.waitFor(
      async () => {
        const jobs = await call("GET", `/api/v1/jobs?feedId=${custodian.data.id}&status=failed`, { token });
        const job = (jobs.body.data as { id: string; fileName: string }[]).find(
          (j) => j.fileName === "securities-20261126.csv",
        );
        expect(job).toBeDefined();
        return job!.id;
      },
      { timeout: 60_000, interval: 250 },
    );

    await api("POST", "/api/v1/portfolios", {
      name: "Global Equity Fund",
      code: "GEF",
      clientId: "client-a",
      baseCurrency: "EUR",
    });
    await api("POST", "/api/v1/portfolios", {
      name: "Euro Bond Fund",
      code: "EBF",
      clientId: "client-a",
      baseCurrency: "EUR",
    });
    await blobs.getContainerClient("customer-exports").createIfNotExists();
    await api("POST", "/api/v1/settings/exports", {
      name: "Daily holdings to the client portal",
      dataType: "holdings",
      format: "csv",
      schedule: { frequency: "daily", time: "06:30", timezone: "Europe/London" },
      destination: { type: "blob", containerUrl: containerUrl("customer-exports"), prefix: "holdings/" },
      fileName: "holdings_{date:yyyyMMdd}.csv",
    });
    const weekly = await api("POST", "/api/v1/settings/exports", {
      name: "Weekly portfolios for finance",
      dataType: "portfolios",
      format: "xlsx",
      schedule: { frequency: "weekly", dayOfWeek: 1, time: "07:00", timezone: "Europe/Zurich" },
      destination: { type: "blob", containerUrl: containerUrl("customer-exports"), prefix: "finance/" },
      fileName: "portfolios_{date:yyyy-MM-dd}.{format}",
    });
    ids.export = weekly.data.id;
    await api("POST", `/api/v1/settings/exports/${ids.export}/run`);
    // The on-call webhook has failed a delivery by now (an exception was opened, a job failed).
    await vi.waitFor(
      async () => {
        const hooks = (await call("GET", "/api/v1/settings/webhooks", { token })).body.data as {
          url: string;
          failingSince?: string;
        }[];
        expect(hooks.find((w) => w.url === hook("data-ops"))?.failingSince).toBeDefined();
      },
      { timeout: 60_000, interval: 250 },
    );
  }, 120_000);

  it("takes a screenshot of each area", async () => {
    const { page, problems } = session();
    const shot = async (name: string): Promise<void> => {
      await page.mouse.move(5, 795); // no hover effect in the picture
      await page.waitForNetworkIdle({ idleTime: 300 });
      await page.screenshot({ path: join(DOCS, `${name}.png`) });
    };
    const go = async (hash: string, heading: string): Promise<void> => {
      await page.evaluate((h) => (location.hash = h), hash);
      await find(page, "heading", heading);
      await page.waitForFunction(() => document.querySelector("main .loading") === null);
    };

    await page.goto(`${baseUrl()}/console`, { waitUntil: "networkidle0" });
    await fill(page, "Client ID", ADMIN.id);
    await fill(page, "Client secret", ADMIN.secret);
    await shot("sign-in");
    await click(page, "button", "Sign in");
    await page.waitForSelector("nav");

    await go("#/overview", "Overview");
    await page.waitForFunction(() => document.querySelectorAll("main .overview-list li").length >= 3);
    await shot("overview");

    await go("#/webhooks", "Webhooks");
    await shot("webhooks");
    await click(page, "button", "Add Webhook");
    const add = await find(page, "dialog", "Add Webhook");
    await fill(add, "Endpoint URL", "https://hooks.example.com/investment-data");
    await click(add, "checkbox", "portfolio.valued");
    await click(add, "checkbox", "refresh_job.failed");
    await add.$$eval("details summary", (s) => s[0]?.click());
    await shot("webhook-add");
    await page.keyboard.press("Escape");
    await page.waitForSelector("dialog[open]", { hidden: true });
    await click(page, "link", hook("treasury"));
    await click(page, "button", "Send test event");
    await waitForText(page, "200");
    await shot("webhook");
    // A delivery's attempt: what was sent and what came back.
    const row = await page.waitForSelector("::-p-xpath(//main//tbody/tr[1])");
    await click(row!, "button", "Attempts");
    for (const summary of ["Request sent (attempt 1)", "Response received (attempt 1)"])
      await (await page.waitForSelector(
        `::-p-xpath(//main//summary[normalize-space()=${JSON.stringify(summary)}])`,
      ))!.click();
    await waitForText(page, '"received": true');
    await page.$eval("#deliveries-heading", (el) => el.scrollIntoView({ block: "start" }));
    await shot("webhook-attempts");

    await go("#/exports", "Data Exports");
    await shot("data-exports");
    await click(page, "button", "New Export");
    const form = await find(page, "dialog", "New Export");
    await fill(form, "Name", "Daily holdings to the custodian");
    await choose(form, "Data type", "Holdings");
    await fill(form, "Time", "06:30");
    await fill(form, "Time zone", "Europe/London", "combobox");
    await fill(form, "Host", "sftp.custodian.example");
    await fill(form, "Username", "ids");
    await fill(form, "Path", "/inbound/holdings");
    await page.waitForNetworkIdle({ idleTime: 500 });
    await form.$eval(".preview", (el) => el.scrollIntoView({ block: "end" }));
    await shot("new-export");
    await page.keyboard.press("Escape");
    await page.waitForSelector("dialog[open]", { hidden: true });
    await go(`#/exports/${ids.export}`, "Weekly portfolios for finance");
    await waitForText(page, "succeeded");
    await shot("data-export");

    await go("#/feeds", "Feeds");
    await shot("feeds");
    await go(`#/feeds/${ids.feed}`, "Vendor security master");
    const input = await page.waitForSelector("input[type=file]");
    // A sample with a bad row (an ISIN whose check digit is wrong), to show the row errors too.
    const sample = join(scratch.path, "securities-20261125.csv");
    writeFileSync(
      sample,
      readFileSync(join(examples, "csv", "securities-20241231.csv"), "utf8").replace("US0378331005", "US0378331006"),
    );
    await input?.uploadFile(sample);
    await click(page, "button", "Run dry run");
    await page.waitForSelector(".dry-run table");
    await page.$eval(".dry-run", (el) => el.closest("section")?.scrollIntoView({ block: "start" }));
    await shot("feed-dry-run");

    await go(`#/blob-sources/${ids.blobSource}`, "Global Custody daily drop");
    await shot("blob-source");
    await go("#/blob-sources", "Blob Sources");
    await shot("blob-sources");

    await go("#/api-clients", "API Clients");
    await shot("api-clients");
    await click(page, "button", "New API Client");
    const client = await find(page, "dialog", "New API Client");
    await fill(client, "Name", "Risk engine");
    await click(client, "button", "Save");
    await find(page, "textbox", "Client secret");
    await shot("api-client-secret");
    await page.keyboard.press("Escape");

    await go("#/jobs", "Jobs");
    await shot("jobs");
    await go(`#/jobs/${ids.job}`, `Job ${ids.job}`);
    await find(page, "button", "Process again");
    await shot("job-failed");
    await go("#/exceptions", "Exceptions");
    const tick = await page.waitForSelector("main tbody input[type=checkbox]");
    await tick!.click();
    await shot("exceptions");
    await go("#/audit", "Audit log");
    await shot("audit-log");

    // The replica as it looks in Azure (SQL Server, Power BI's Azure SQL steps), with a busy deployment's figures.
    const stop = await intercept(page, (request) => {
      const path = new URL(request.url()).pathname;
      const json = (body: unknown): true => {
        void request.respond({ status: 200, contentType: "application/json", body: JSON.stringify(body) });
        return true;
      };
      if (path === "/api/v1/settings/replica")
        return json({
          data: {
            engine: "sqlserver",
            host: "ids-contoso.database.windows.net",
            port: 1433,
            database: "analytics",
            schema: "analytics",
            authentication: ["entra", "sql-login"],
            status: "current",
            lagSeconds: 0,
            lastProjectedAt: new Date().toISOString(),
            tables: (
              [
                ["portfolios", 1250],
                ["securities", 18_422],
                ["prices", 4_210_553],
                ["holdings", 918_442],
                ["transactions", 2_301_118],
                ["exceptions", 311],
              ] as const
            ).map(([name, rows]) => ({ name, rows })),
          },
        });
      if (path === "/api/v1/settings/replica/logins")
        return json({
          data: [
            {
              id: "rl_1",
              name: "Power BI (finance)",
              username: "ro_power_bi_finance_k3x9q2",
              connectionLimit: 10,
              statementTimeoutSeconds: 60,
              createdAt: "2026-11-20T08:00:00.000Z",
              updatedAt: "2026-11-20T08:00:00.000Z",
            },
            {
              id: "rl_2",
              name: "Risk dashboards",
              username: "ro_risk_dashboards_p2m8d1",
              connectionLimit: 4,
              statementTimeoutSeconds: 300,
              createdAt: "2026-11-22T14:12:00.000Z",
              updatedAt: "2026-11-22T14:12:00.000Z",
            },
          ],
          pagination: { page: 1, pageSize: 200, totalItems: 2, totalPages: 1 },
        });
      return false;
    });
    await go("#/replica", "Replica");
    await find(page, "heading", "Connection");
    await shot("replica");
    await stop();

    await page.setViewport({ width: 390, height: 844 });
    await go(`#/exports/${ids.export}`, "Weekly portfolios for finance");
    await shot("narrow");
    await page.setViewport({ width: 1280, height: 800 });
    expect(problems).toEqual([]);
  }, 180_000);
});
