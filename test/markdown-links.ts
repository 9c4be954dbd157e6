import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A relative link of a markdown file that leads nowhere: a missing file, or a heading the target does not have. */
export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  reason: string;
}

/** The text a reader sees: fenced code blocks and HTML comments blanked (line numbers kept), inline code spans emptied. */
function prose(markdown: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  return markdown
    .replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\2[^\n]*$/gm, blank)
    .replace(/<!--[\s\S]*?-->/g, blank)
    .replace(/`[^`\n]*`/g, (span) => " ".repeat(span.length));
}

/**
 * GitHub's anchor of a heading (github-slugger): the rendered text lower-cased, punctuation removed,
 * spaces made hyphens; a repeated anchor gets -1, -2, … .
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const withoutFences = markdown.replace(/^( {0,3})(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\2[^\n]*$/gm, "");
  for (const m of withoutFences.matchAll(/^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$/gm)) {
    const text = (m[1] ?? "")
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
      .replace(/`/g, "")
      .replace(/\*/g, "");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** Every relative link (and image) of `file` whose file or heading does not exist; absolute URLs are not checked. */
export function brokenLinks(file: string, root: string): BrokenLink[] {
  const text = prose(readFileSync(file, "utf8"));
  const broken: BrokenLink[] = [];
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1] ?? "";
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const line = text.slice(0, m.index).split("\n").length;
    const report = (reason: string) => broken.push({ file: relative(root, file), line, target, reason });
    const [path = "", anchor] = target.split("#", 2);
    const resolved = path === "" ? file : resolve(dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      report("no such file");
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(resolved).isDirectory() || !resolved.endsWith(".md")) {
      report("an anchor into something that is not a markdown file");
      continue;
    }
    if (!headingAnchors(readFileSync(resolved, "utf8")).has(decodeURIComponent(anchor)))
      report(`no heading #${anchor} in ${relative(root, resolved)}`);
  }
  return broken;
}

/** The markdown files whose links the tests check: the README, infra/README.md and every page of docs/. */
export function documentationFiles(root: string): string[] {
  const pages = readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(root, "docs", name));
  return [join(root, "README.md"), join(root, "infra", "README.md"), ...pages];
}
