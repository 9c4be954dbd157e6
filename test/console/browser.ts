/**
 * Driving the System Settings console as a person would, in a real headless Chromium (from npm:
 * `@sparticuz/chromium`, unpacked once by test/console/browser-setup.ts) through puppeteer-core: elements are
 * found by role and accessible name (puppeteer's ARIA query handler), as assistive technology finds them.
 */
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import axe from "axe-core";
import puppeteer, { type Browser, type ElementHandle, type HTTPRequest, type Page } from "puppeteer-core";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { baseUrl } from "../http";
import { BOOTSTRAP, root } from "../runtime";

/** Screenshots taken while the tests run (gitignored): look at them after a change to the console. */
export const ARTIFACTS = join(root, "test-artifacts", "console");

export interface ConsoleSession {
  browser: Browser;
  page: Page;
  /** Uncaught errors and failed loads in the page: a test ends by expecting none. */
  problems: string[];
}

/** A browser for this test file, closed after it. */
export function useBrowser(): () => ConsoleSession {
  let session: ConsoleSession | undefined;
  beforeAll(async () => {
    const browser = await puppeteer.launch({
      executablePath: inject("chromiumPath"),
      // Root here, so no sandbox; nothing else from the serverless flags (they assume a Lambda).
      args: ["--no-sandbox"],
      headless: "shell",
      // The package's own fonts (Open Sans), so that screenshots look the same on every machine.
      env: { ...process.env, FONTCONFIG_PATH: join(tmpdir(), "fonts") },
    });
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const problems: string[] = [];
    page.on("pageerror", (error) =>
      problems.push(`page error: ${error instanceof Error ? error.message : String(error)}`),
    );
    page.on("requestfailed", (request) =>
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`),
    );
    page.on("console", (message) => {
      if (message.type() === "error" && !/status of 4\d\d/.test(message.text()))
        problems.push(`console error: ${message.text()}`);
    });
    session = { browser, page, problems };
  }, 60_000);
  afterAll(async () => {
    await session?.browser.close();
  });
  return () => {
    if (session === undefined) throw new Error("useBrowser(): the browser is not started yet");
    return session;
  };
}

/**
 * Lets `handle` answer (or hold, or fail) the page's requests it wants, returning true for those it
 * took; the others go to the service. The returned function ends it once the page is quiet.
 */
export async function intercept(page: Page, handle: (request: HTTPRequest) => boolean): Promise<() => Promise<void>> {
  await page.setRequestInterception(true);
  let on = true;
  const listener = (request: HTTPRequest): void => {
    if (on && handle(request)) return;
    request.continue().catch(() => undefined); // the page may have gone on meanwhile
  };
  page.on("request", listener);
  return async () => {
    on = false;
    await page.waitForNetworkIdle({ idleTime: 200 });
    page.off("request", listener);
    await page.setRequestInterception(false);
  };
}

/** A selector for the element with this role and accessible name (exactly). */
export const byRole = (role: string, name: string): string =>
  `::-p-aria([name=${JSON.stringify(name)}][role=${JSON.stringify(role)}])`;

/** The element with this role and name, once it is there. */
export async function find(
  scope: Page | ElementHandle,
  role: string,
  name: string,
  timeout = 10_000,
): Promise<ElementHandle<Element>> {
  const handle = await scope.waitForSelector(byRole(role, name), { timeout });
  if (handle === null) throw new Error(`no ${role} named ${name}`);
  return handle;
}

export async function click(scope: Page | ElementHandle, role: string, name: string): Promise<void> {
  await (await find(scope, role, name)).click();
}

/** Types into the field labelled `label` (what is there is replaced). */
export async function fill(scope: Page | ElementHandle, label: string, value: string, role = "textbox"): Promise<void> {
  const field = await find(scope, role, label);
  await field.click({ count: 3 });
  await field.evaluate((el) => {
    (el as HTMLInputElement).value = "";
  });
  await field.type(value);
}

/** Chooses the option with this text in the drop-down labelled `label`. */
export async function choose(scope: Page | ElementHandle, label: string, optionText: string): Promise<void> {
  const select = await find(scope, "combobox", label);
  // Options a form loads from the service (a feed, a webhook) may still be on their way: wait for it.
  let value: string | undefined;
  for (const deadline = Date.now() + 10_000; value === undefined && Date.now() < deadline;) {
    value = await select.evaluate(
      (el, text) => Array.from((el as HTMLSelectElement).options).find((o) => o.text === text)?.value,
      optionText,
    );
    if (value === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (value === undefined) throw new Error(`${label} has no option ${optionText}`);
  await select.select(value);
}

/** The visible text of the page's main region (or of the open dialog). */
export async function textOf(page: Page, selector = "main"): Promise<string> {
  return page.$eval(selector, (el) => (el as HTMLElement).innerText);
}

/** Waits until the text shows up in the element (main by default). */
export async function waitForText(page: Page, text: string, selector = "main", timeout = 15_000): Promise<void> {
  await page.waitForFunction(
    (sel, t) => document.querySelector<HTMLElement>(sel)?.innerText.includes(t) === true,
    { timeout },
    selector,
    text,
  );
}

/**
 * On the list page headed `heading`, pages through the list (Next page) until `text` shows up: lists
 * are ordered by id, so a new item can be on any page when other tests share the runtime.
 */
export async function pageTo(page: Page, heading: string, text: string): Promise<void> {
  const listed = async (): Promise<void> => {
    await page.waitForFunction(
      (h) =>
        document.querySelector("main h1")?.textContent === h &&
        document.querySelector("main .loading") === null &&
        document.querySelector("main table, main .empty") !== null,
      {},
      heading,
    );
  };
  await listed();
  for (let pages = 1; !(await textOf(page)).includes(text); pages++) {
    expect(pages, `pages looked through for ${text}`).toBeLessThan(50);
    expect(await page.$(byRole("button", "Next page")), `${text} is not listed:\n${await textOf(page)}`).not.toBeNull();
    await click(page, "button", "Next page");
    await page.waitForNetworkIdle();
    await listed();
  }
}

/** Opens the console and signs in with the bootstrap administrator client. */
export async function signIn(page: Page, clientId = BOOTSTRAP.id, secret = BOOTSTRAP.secret): Promise<void> {
  await page.goto(`${baseUrl()}/console`, { waitUntil: "networkidle0" });
  await fill(page, "Client ID", clientId);
  await fill(page, "Client secret", secret);
  await click(page, "button", "Sign in");
  await page.waitForSelector("nav");
}

/** Goes to an area through the navigation and waits for its heading. */
export async function openArea(page: Page, link: string, heading = link): Promise<void> {
  await click(page, "link", link);
  await find(page, "heading", heading);
}

/** axe-core's serious and critical findings on the page as it is now (none expected). */
export async function expectAccessible(page: Page): Promise<void> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5),
    }));
  });
  expect(violations.filter((v) => v.impact === "serious" || v.impact === "critical")).toEqual([]);
}

/** Saves a screenshot of the page as it is now under test-artifacts/console/ (scrolled to `at`'s element first, when given). */
export async function screenshot(page: Page, name: string, at?: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  if (at !== undefined) await page.$eval(at, (el) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}
