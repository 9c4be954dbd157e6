import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { brokenLinks, documentationFiles, headingAnchors } from "./markdown-links";
import { root } from "./runtime";

describe("documentation links: every relative link of the README, infra/README.md and docs/ leads somewhere", () => {
  it("every relative link names a file that exists, and every #anchor a heading of its page", () => {
    const broken = documentationFiles(root).flatMap((file) => brokenLinks(file, root));
    expect(broken).toEqual([]);
  });

  it("every page of docs/ is linked from the README", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const pages = documentationFiles(root).filter((file) => file.startsWith(join(root, "docs")));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages)
      expect(readme, `the README links docs/${basename(page)}`).toContain(`](docs/${basename(page)}`);
  });

  it("the checker reports a missing file, a missing heading and a link into a code block's neighbour, and ignores code", () => {
    const dir = mkdtempSync(join(tmpdir(), "ids-doc-links-"));
    try {
      mkdirSync(join(dir, "docs"));
      writeFileSync(
        join(dir, "docs", "page.md"),
        "# A page\n\n## The service's own storage\n\n## Runs: once, retried\n\n## Runs: once, retried\n",
      );
      writeFileSync(
        join(dir, "README.md"),
        [
          "# Readme",
          "[ok](docs/page.md#the-services-own-storage) [ok too](docs/page.md#runs-once-retried-1) [self](#readme)",
          "[missing file](docs/nope.md) [missing heading](docs/page.md#no-such-heading)",
          "```sh",
          "[not a link](docs/in-code.md)",
          "```",
          "`[nor this](docs/inline.md)` <!-- [nor this](docs/comment.md) --> [web](https://example.com/x)",
        ].join("\n"),
      );
      const broken = brokenLinks(join(dir, "README.md"), dir);
      expect(broken.map((b) => [b.line, b.target])).toEqual([
        [3, "docs/nope.md"],
        [3, "docs/page.md#no-such-heading"],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("anchors are GitHub's: punctuation dropped, spaces hyphenated, code kept as text, repeats numbered", () => {
    expect([
      ...headingAnchors(
        "# Feeds: file ingestion\n## Address rules (SSRF guard)\n## `analytics.portfolios`\n## File limits\n## File limits\n",
      ),
    ]).toEqual([
      "feeds-file-ingestion",
      "address-rules-ssrf-guard",
      "analyticsportfolios",
      "file-limits",
      "file-limits-1",
    ]);
  });
});
