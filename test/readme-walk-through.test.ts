import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baseUrl, call, tokenFor, useOwnRuntime } from "./http";
import { root } from "./runtime";

/** The bootstrap client the walk-through uses: the local default of local.settings.example.json. */
const LOCAL_ADMIN = { id: "local-admin", secret: "local-admin-secret-change-me" };

/** The `sh` code blocks of one section (`## heading` up to the next `## `) of a markdown page. */
function shellBlocks(page: string, heading: string): string[] {
  const text = readFileSync(join(root, page), "utf8");
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${page}: no section "${heading}"`);
  const end = text.indexOf("\n## ", start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
}

/** Runs a script in bash (-eu, pipefail) from the repository root; resolves with what it printed. */
function bash(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      { cwd: root, encoding: "utf8", timeout: 60_000 },
      (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout}\n${stderr}`)),
    );
  });
}

/** The error objects (the spec's `{ "error": { "code", … } }`) among what a script printed. */
const errorAnswers = (out: string): string[] => out.match(/\{"error":\{"code":"[A-Z_]+"[^}]*\}/g) ?? [];

describe("README › walk-through with curl: every command works as written against a fresh local runtime", () => {
  useOwnRuntime({ BOOTSTRAP_CLIENT_ID: LOCAL_ADMIN.id, BOOTSTRAP_CLIENT_SECRET: LOCAL_ADMIN.secret });

  it("token → portfolio → imports → holdings: no answer is an error, and the holdings are the ones the README states", async () => {
    const blocks = shellBlocks("README.md", "Walk-through with curl");
    expect(blocks.length, "the walk-through and its imports").toBe(2);
    const [first = "", imports = ""] = blocks;
    expect(first).toMatch(/^BASE=http:\/\/127\.0\.0\.1:7071$/m);
    const script = `${first.replace(/^BASE=.*$/m, `BASE=${baseUrl()}`)}\n${imports}\necho\necho "ID=$ID"`;
    const out = await bash(script);
    expect(errorAnswers(out), "the walk-through's error answers").toEqual([]);
    const id = /^ID=(\S+)$/m.exec(out)?.[1] ?? "";
    expect(out).toContain(`"id":"${id}"`);

    // The README: 100 × 171.48 USD ÷ 1.08 = 15,877.78 EUR and 50 × 180.50 = 9,025.00 EUR, totalValue 24,902.78.
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme).toContain("`totalValue` 24,902.78");
    const token = await tokenFor(LOCAL_ADMIN.id, LOCAL_ADMIN.secret);
    await expect
      .poll(async () => (await call("GET", `/api/v1/portfolios/${id}`, { token })).body.data.valuationStatus, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe("current");
    const holdings = (await call("GET", `/api/v1/portfolios/${id}/holdings?date=2024-03-28`, { token })).body.data;
    expect(holdings.totalValue).toBe(24902.78);
    expect(holdings.holdings.map((h: { isin: string; marketValue: number }) => [h.isin, h.marketValue]).sort()).toEqual(
      [
        ["DE0007164600", 9025],
        ["US0378331005", 15877.78],
      ],
    );
  }, 90_000);

  it("docs/api.md › more calls works as written, with the walk-through's $BASE, $TOKEN and $ID", async () => {
    const [more = ""] = shellBlocks("docs/api.md", "More calls");
    const token = await tokenFor(LOCAL_ADMIN.id, LOCAL_ADMIN.secret);
    const created = await call("POST", "/api/v1/portfolios", {
      token,
      body: { name: "Income", code: "INCOME-01", clientId: "client-42", baseCurrency: "EUR" },
    });
    expect(created.status, created.text).toBe(201);
    const script = `BASE=${baseUrl()}\nTOKEN=${token}\nID=${created.body.data.id}\n${more}`;
    const out = await bash(script);
    expect(errorAnswers(out), "the error answers").toEqual([]);
    expect(out).toContain('"status":"inactive"');
    expect(out).toContain('"type":"composite"');
    expect(out).toContain('"scopes":["api.read"]');
    expect(out).toContain('"resource":{"type":"api-client"');
    expect(out).toContain('"openapi":"3.1');
  }, 90_000);

  it("docs/api.md › time travel works as written: the answers as at T1 are the walk-through's, whatever was corrected since", async () => {
    const [travel = ""] = shellBlocks("docs/api.md", "Time travel");
    const token = await tokenFor(LOCAL_ADMIN.id, LOCAL_ADMIN.secret);
    const id = (await call("GET", "/api/v1/portfolios?clientId=client-42", { token })).body.data[0].id as string;
    const before = (await call("GET", `/api/v1/portfolios/${id}`, { token })).body.data;
    expect(before).toMatchObject({ name: "Growth Fund", totalValue: 24902.78, valuationStatus: "current" });
    const out = await bash(`BASE=${baseUrl()}\nTOKEN=${token}\nID=${id}\n${travel}`);
    expect(errorAnswers(out), "the error answers").toEqual([]);
    // As at T1: the holdings from 171.48 and the old name; X-As-At on the answer.
    expect(out).toMatch(/"totalValue":24902\.78,"holdings":\[/);
    expect(out).toMatch(/x-as-at: \d{4}-\d{2}-\d{2}T[\d:.]+Z/i);
    expect(out).toContain('"name":"Growth Fund","code":"GROWTH-01"');
    expect(out).toContain('"recordedBy":"local-admin","requestId":"rename-growth-01"');
    // The correction is in the current answers: 100 × 172.80 USD ÷ 1.08 + 9,025.00 = 25,025.00.
    await expect
      .poll(async () => (await call("GET", `/api/v1/portfolios/${id}`, { token })).body.data.totalValue, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe(25025);
  }, 90_000);
});
