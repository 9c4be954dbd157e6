import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./runtime";

/** Every file a clone of the repository has. */
const tracked = (): string[] =>
  execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "");

const TEXT = /\.(md|ts|mts|js|json|bicep|yml|yaml|sh)$|^\.ci\/run$/;

/** Relative paths named in a line: `a/b.md`, [x](../y), '../z' — anything starting with ./ or ../. */
const RELATIVE = /(?:^|[\s`'"([])(\.{1,2}\/[A-Za-z0-9_./-]+)/g;

describe("the repository stands on its own", () => {
  it("names no path outside itself in docs, comments or code", () => {
    const outside: string[] = [];
    for (const file of tracked().filter((f) => TEXT.test(f) && f !== "package-lock.json")) {
      const lines = readFileSync(join(root, file), "utf8").split("\n");
      lines.forEach((line, i) => {
        for (const match of line.matchAll(RELATIVE)) {
          const target = resolve(root, dirname(file), match[1] ?? "");
          if (relative(root, target).startsWith("..")) outside.push(`${file}:${i + 1}: ${match[1]}`);
        }
      });
    }
    expect(outside).toEqual([]);
  });

  it("links only to documents that exist in it", () => {
    const missing: string[] = [];
    for (const file of tracked().filter((f) => f.endsWith(".md"))) {
      const text = readFileSync(join(root, file), "utf8");
      for (const match of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        const link = match[1] ?? "";
        if (/^[a-z]+:/i.test(link)) continue;
        if (!existsSync(resolve(root, dirname(file), link))) missing.push(`${file}: ${link}`);
      }
      // Design documents of the people who specified the service are not part of a clone.
      for (const name of text.matchAll(/\b(ARCHITECTURE|STYLE|API)\.md\b/g))
        missing.push(`${file}: mentions ${name[0]}`);
    }
    expect(missing).toEqual([]);
  });
});
