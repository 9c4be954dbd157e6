import { describe, expect, it } from "vitest";
import { baseUrl } from "../http";

/** The page, and the asset URLs it names (relative, under console/<version>/). */
async function page(): Promise<{ response: Response; html: string; assets: string[]; version: string }> {
  const response = await fetch(`${baseUrl()}/console`);
  const html = await response.text();
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
  const version = /console\/([0-9a-f]{16})\//.exec(html)?.[1] ?? "";
  return { response, html, assets, version };
}

describe("the System Settings console is served by the service at GET /console", () => {
  it("serves the page without a token, with a CSP that allows no inline script, no framing and no sniffing", async () => {
    const { response, html, assets, version } = await page();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    // The page itself is revalidated every time (it names the current asset versions).
    expect(response.headers.get("cache-control")).toBe("no-cache");
    expect(response.headers.get("etag")).toBe(`"${version}"`);
    // Static files are not counted against the caller's rate limit.
    expect(response.headers.get("x-ratelimit-limit")).toBeNull();
    // Every script is a file (none inline), every URL relative, so the page works on any host and path.
    expect(html.match(/<script[^>]*>/g)).toEqual([`<script type="module" src="console/${version}/main.js">`]);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect(asset).toMatch(new RegExp(`^console/${version}/`));
  });

  it("answers 304 to a browser that has the current page", async () => {
    const { version } = await page();
    const response = await fetch(`${baseUrl()}/console`, { headers: { "If-None-Match": `"${version}"` } });
    expect(response.status).toBe(304);
    expect(await response.text()).toBe("");
  });

  it("serves its scripts, styles and the view library under the version, cached for a year", async () => {
    const { assets, version } = await page();
    for (const path of [
      ...assets,
      `console/${version}/vendor/preact.js`,
      `console/${version}/vendor/hooks.js`,
      `console/${version}/vendor/htm.js`,
    ]) {
      const response = await fetch(`${baseUrl()}/${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("cache-control"), path).toBe("public, max-age=31536000, immutable");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      const type = response.headers.get("content-type") ?? "";
      if (path.endsWith(".js")) expect(type, path).toBe("text/javascript; charset=utf-8");
      if (path.endsWith(".css")) expect(type, path).toBe("text/css; charset=utf-8");
    }
    // The browser resolves no bare specifier without an (inline, hence forbidden) import map.
    const hooks = await (await fetch(`${baseUrl()}/console/${version}/vendor/hooks.js`)).text();
    expect(hooks).toContain('from"./preact.js"');
    expect(hooks).not.toContain('from"preact"');
  });

  it("serves nothing outside its allow-list: other versions, folders, type stubs, configuration and traversal are 404", async () => {
    const { version } = await page();
    for (const path of [
      `console/0123456789abcdef/main.js`,
      `console/${version}/tsconfig.json`,
      `console/${version}/index.html`,
      `console/${version}/vendor/preact.d.ts`,
      `console/${version}/../../package.json`,
      `console/${version}/%2e%2e/%2e%2e/package.json`,
      `console/${version}/..%2f..%2fpackage.json`,
      `console/${version}/lib`,
      `console/main.js`,
      `console/${version}/node_modules/preact/package.json`,
    ]) {
      const response = await fetch(`${baseUrl()}/${path}`);
      expect(response.status, path).toBe(404);
      const body = (await response.json()) as { error: { code: string } };
      expect(body.error.code, path).toBe("NOT_FOUND");
    }
  });

  it("sends console/ (with a slash, where relative URLs would break) to console; other methods are 405", async () => {
    const slash = await fetch(`${baseUrl()}/console/`, { redirect: "manual" });
    expect(slash.status).toBe(308);
    expect(new URL(slash.headers.get("location") ?? "", `${baseUrl()}/console/`).pathname).toBe("/console");
    const post = await fetch(`${baseUrl()}/console`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
  });
});
