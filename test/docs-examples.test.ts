import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { parseStorageConnectionString } from "../shared/domain/storage-connection-string";
import { docPages, errorAnswers, pageExamples, placed, type RuntimePlace } from "./doc-examples";
import { baseUrl, call, tokenFor } from "./http";
import { BOOTSTRAP, root } from "./runtime";

/** Runs a script in bash (-euo pipefail) in `cwd`; resolves with what it printed. */
function bash(script: string, cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-euo", "pipefail", "-c", script],
      { cwd, encoding: "utf8", timeout: 120_000, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) =>
        error === null ? resolve(stdout) : reject(new Error(`${error.message}\n${stdout.slice(-4000)}\n${stderr}`)),
    );
  });
}

const pages = docPages();

describe("every shell example of README.md and docs/ runs as written against the local runtime (rules: test/doc-examples.ts)", () => {
  let place: RuntimePlace;
  let token: string;
  let scratch: string;
  beforeAll(async () => {
    place = {
      baseUrl: baseUrl(),
      blobEndpoint: parseStorageConnectionString(inject("storageConnectionString")).blobEndpoint ?? "",
      clientId: BOOTSTRAP.id,
      clientSecret: BOOTSTRAP.secret,
    };
    token = await tokenFor(BOOTSTRAP.id, BOOTSTRAP.secret);
    // Files examples write (webhook.json, openapi.json, a key pair) land here, not in the repository.
    scratch = mkdtempSync(join(tmpdir(), "ids-doc-examples-"));
    for (const linked of ["examples", "node_modules"]) symlinkSync(join(root, linked), join(scratch, linked));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("every page's examples are found, and every skipped one says why", () => {
    const all = pages.flatMap((page) => pageExamples(page));
    expect(all.length).toBeGreaterThan(10);
    for (const e of all.filter((x) => x.skip !== undefined))
      expect(e.skip?.trim().length, `${e.page}:${e.line}`).toBeGreaterThan(5);
  });

  it("the rules themselves: sh blocks only, a skip needs its reason, the defaults become the runtime's, an error answer is found", () => {
    const text = [
      "```sh",
      "echo one",
      "```",
      "<!-- example: skip — Azure only -->",
      "```sh",
      "az login",
      "```",
      "```js",
      "not shell",
      "```",
    ].join("\n");
    expect(pageExamples("x.md", text)).toEqual([
      { page: "x.md", line: 1, code: "echo one" },
      { page: "x.md", line: 5, code: "az login", skip: "Azure only" },
    ]);
    expect(() => pageExamples("x.md", "<!-- example: skip -->\n```sh\necho\n```")).toThrow(/malformed example marker/);
    expect(
      placed("curl http://127.0.0.1:7071/x -d client_id=local-admin -d client_secret=local-admin-secret-change-me", {
        baseUrl: "http://127.0.0.1:1234",
        blobEndpoint: "",
        clientId: "someone",
        clientSecret: "s3cret",
      }),
    ).toBe("curl http://127.0.0.1:1234/x -d client_id=someone -d client_secret=s3cret");
    expect(errorAnswers('ok\n{"error":{"code":"NOT_FOUND","message":"no"}}')).toHaveLength(1);
  });

  it("npm run seed loads the sample dataset through the API, and a second run changes nothing", async () => {
    const env = {
      IDS_BASE_URL: place.baseUrl,
      IDS_BLOB_ENDPOINT: place.blobEndpoint,
      IDS_CLIENT_ID: place.clientId,
      IDS_CLIENT_SECRET: place.clientSecret,
      IDS_SFTP_PORT: String(inject("sftpPort")),
    };
    const first = await bash("node dist/local/seed/seed.js", root, env);
    expect(first).toMatch(/portfolios: +7 \(\d+ created\)/);
    expect(first).toMatch(/prices: +1030 /);
    const second = await bash("node dist/local/seed/seed.js", root, env);
    for (const dataType of ["securities", "fx-rates", "prices", "positions", "transactions"])
      expect(second, dataType).toMatch(new RegExp(`${dataType}: +(\\d+) \\(0 created, 0 updated, \\1 unchanged\\)`));
    expect(second).toMatch(/portfolios: +7 \(0 created\)/);
    expect(second).toContain("already there");
    expect(second).toContain("its file already delivered");

    // What a newcomer then sees: valued portfolios (the composite too), the export's file, the feed's job.
    const list = await call("GET", "/api/v1/portfolios?clientId=client-mueller", { token });
    const all = list.body.data as { id: string; code: string }[];
    expect(all.map((p) => p.code).sort()).toEqual(["DE-4711-01", "DE-4711-02", "MUELLER-ALL"]);
    const totals = new Map<string, number>();
    for (const p of all) {
      const holdings = await call("GET", `/api/v1/portfolios/${p.id}/holdings?date=2026-03-31`, { token });
      expect(holdings.status, holdings.text).toBe(200);
      expect(holdings.body.data.complete, p.code).toBe(true);
      totals.set(p.code, holdings.body.data.totalValue);
    }
    expect(totals.get("MUELLER-ALL")).toBeCloseTo((totals.get("DE-4711-01") ?? 0) + (totals.get("DE-4711-02") ?? 0), 2);
    const exports = await call("GET", "/api/v1/settings/exports?pageSize=200", { token });
    const sample = (exports.body.data as { id: string; name: string }[]).find(
      (e) => e.name === "Sample: daily holdings",
    );
    expect(sample).toBeDefined();
    await expect
      .poll(
        async () =>
          (await call("GET", `/api/v1/settings/exports/${sample?.id}/runs`, { token })).body.data.map(
            (r: { status: string }) => r.status,
          ),
        { timeout: 60_000, interval: 500 },
      )
      .toEqual(["succeeded"]);
    const jobs = await call("GET", "/api/v1/jobs?source=sftp&pageSize=200", { token });
    expect(
      (jobs.body.data as { fileName: string; status: string }[]).filter(
        (j) => j.fileName === "transactions-20241204.csv",
      ),
    ).toMatchObject([{ status: "completed", counts: { received: 4, accepted: 4, rejected: 0 } }]);
  }, 240_000);

  // The README's walk-through leaves $BASE, $TOKEN and $ID; every docs page starts from them.
  let walkThrough = "";
  for (const page of pages) {
    const examples = pageExamples(page).filter((e) => e.skip === undefined);
    if (examples.length === 0) continue;
    it(`${page}: ${examples.length} example(s) run as written (lines ${examples.map((e) => e.line).join(", ")})`, async () => {
      if (page !== "README.md")
        for (const e of examples)
          expect(e.code, `${page}:${e.line} sets a variable of the README's walk-through`).not.toMatch(
            /^\s*(?:export\s+)?(BASE|TOKEN|ID)=/m,
          );
      const script = [
        `BASE=${place.baseUrl}`,
        `TOKEN=${token}`,
        page === "README.md" ? "" : walkThrough,
        ...examples.map((e) => `# ${e.page}:${e.line}\n${placed(e.code, place)}`),
        'echo; echo "ID=${ID-}"',
      ].join("\n");
      const out = await bash(script, scratch);
      expect(errorAnswers(out), `${page}: the error answers`).toEqual([]);
      if (page === "README.md") walkThrough = `ID=${/^ID=(\S*)$/m.exec(out)?.[1] ?? ""}`;
      await pageChecks[page]?.(out, token);
    }, 240_000);
  }
});

/** What a page's examples must have done beyond not failing. */
const pageChecks: Record<string, (out: string, token: string) => Promise<void>> = {
  // The README: 100 × 171.48 USD ÷ 1.08 = 15,877.78 EUR and 50 × 180.50 = 9,025.00 EUR, totalValue 24,902.78.
  "README.md": async (out, token) => {
    const id = /^ID=(\S+)$/m.exec(out)?.[1] ?? "";
    expect(out).toContain(`"id":"${id}"`);
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
  },
  "docs/api.md": async (out) => {
    expect(out).toContain('"status":"inactive"');
    expect(out).toContain('"type":"composite"');
    expect(out).toContain('"scopes":["api.read"]');
    expect(out).toContain('"openapi":"3.1');
  },
};
