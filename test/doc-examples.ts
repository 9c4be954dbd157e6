/**
 * The shell examples of README.md and docs/, as test/docs-examples.test.ts runs them. The rules (also
 * in docs/operations.md, "Examples in the docs"):
 *
 * - Every fenced block whose info string is `sh` is an example and runs, in bash with
 *   `set -euo pipefail`, from a scratch folder that links the repository's `examples/` and
 *   `node_modules/` (files an example writes, like `webhook.json`, land there).
 * - The blocks of one page run in page order in one bash process: a page's variables carry from block
 *   to block and never to another page. The README runs first; every other page starts with the
 *   walk-through's `$BASE`, `$TOKEN` and `$ID` and must not set them.
 * - The local defaults an example names (local.settings.example.json: `http://127.0.0.1:<PORT>`, the
 *   bootstrap client's id and secret, Azurite's blob endpoint `http://127.0.0.1:10000/devstoreaccount1`)
 *   are replaced by the test runtime's, since it runs on free ports.
 * - A block that cannot run against a local runtime (Azure only, long-running like `npm start`,
 *   interactive) has `<!-- example: skip — why -->` on the line before its fence; the reason is required.
 * - An example fails when bash fails or when anything it prints is the API's error shape
 *   (`{"error":{"code":…}}`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { root } from "./runtime";

export interface Example {
  page: string;
  line: number;
  code: string;
  /** Why it does not run locally, when its page says so. */
  skip?: string;
}

const SKIP = /^<!-- example: skip — (.+?) -->$/;

/** The pages: README.md, then docs/ (sub-folders included) in name order. */
export function docPages(): string[] {
  const docs = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name.split("\\").join("/")}`);
  return ["README.md", ...docs];
}

/** The `sh` blocks of one page, with their skip markers. */
export function pageExamples(page: string, text = readFileSync(join(root, page), "utf8")): Example[] {
  const lines = text.split("\n");
  const examples: Example[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const fence = /^(`{3,})(\S*)/.exec(lines[i] ?? "");
    if (fence === null) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith(fence[1] ?? "```") && l.trim() === fence[1]);
    const close = end < 0 ? lines.length : end;
    if (fence[2] === "sh") {
      const marker = SKIP.exec((lines[i - 1] ?? "").trim());
      const looksLikeMarker = (lines[i - 1] ?? "").includes("<!-- example");
      if (looksLikeMarker && marker === null)
        throw new Error(`${page}:${i}: a malformed example marker (write <!-- example: skip — why -->)`);
      examples.push({
        page,
        line: i + 1,
        code: lines.slice(i + 1, close).join("\n"),
        ...(marker?.[1] === undefined ? {} : { skip: marker[1] }),
      });
    }
    i = close;
  }
  return examples;
}

/** Where the test runtime differs from the local defaults the docs name. */
export interface RuntimePlace {
  baseUrl: string;
  blobEndpoint: string;
  clientId: string;
  clientSecret: string;
}

/** An example with the local defaults replaced by the test runtime's (see the rules above). */
export function placed(code: string, place: RuntimePlace): string {
  const { Values: local } = JSON.parse(readFileSync(join(root, "local.settings.example.json"), "utf8")) as {
    Values: Record<string, string>;
  };
  const blob = /BlobEndpoint=([^;]+)/.exec(local.STORAGE_CONNECTION_STRING ?? "")?.[1] ?? "";
  return code
    .split(`http://127.0.0.1:${local.PORT}`)
    .join(place.baseUrl)
    .split(blob.replace(/\/+$/, ""))
    .join(place.blobEndpoint.replace(/\/+$/, ""))
    .split(local.BOOTSTRAP_CLIENT_SECRET ?? "")
    .join(place.clientSecret)
    .replace(new RegExp(`\\b${local.BOOTSTRAP_CLIENT_ID ?? ""}\\b`, "g"), place.clientId);
}

/** The error objects (the spec's `{ "error": { "code", … } }`) among what a script printed. */
export const errorAnswers = (out: string): string[] => out.match(/\{"error":\{"code":"[A-Z_]+"[^}]*\}/g) ?? [];
