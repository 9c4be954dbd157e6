import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

/** One file the console serves, read once. */
export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
}

/** The System Settings console as served: its page, its files by URL path, and their content hash. */
export interface ConsoleBundle {
  /** A hash of every file served: the asset URLs' version segment, and the page's ETag. */
  version: string;
  /** index.html with the version filled in. */
  page: Buffer;
  /** URL path under `console/<version>/` → the file. Nothing outside this map is ever read or served. */
  assets: ReadonlyMap<string, ConsoleAsset>;
}

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * The view library, served from the installed packages (pinned exactly in package.json). The browser
 * resolves no bare specifier without an import map, and an import map would be inline script, which
 * the Content-Security-Policy forbids: so preact/hooks' one `import … from "preact"` is pointed at the
 * served copy of preact (the same URL, hence the same module instance).
 */
const VENDOR: readonly { path: string; pkg: string; file: string; rewrite?: [string, string] }[] = [
  { path: "vendor/preact.js", pkg: "preact", file: "dist/preact.mjs" },
  {
    path: "vendor/hooks.js",
    pkg: "preact",
    file: "hooks/dist/hooks.mjs",
    rewrite: ['from"preact"', 'from"./preact.js"'],
  },
  { path: "vendor/htm.js", pkg: "htm", file: "dist/htm.module.js" },
];

/** The folder holding package.json: the project locally, the app's root (wwwroot) in Azure. */
function appRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** The installed package's folder (found from its entry point: not every package exports its package.json). */
function packageDir(pkg: string): string {
  let dir = dirname(require.resolve(pkg));
  while (!(
    existsSync(join(dir, "package.json")) &&
    (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name === pkg
  )) {
    if (dirname(dir) === dir) throw new Error(`the package ${pkg} is not installed`);
    dir = dirname(dir);
  }
  return dir;
}

function vendorFile(entry: (typeof VENDOR)[number]): Buffer {
  let text = readFileSync(join(packageDir(entry.pkg), entry.file), "utf8");
  if (entry.rewrite !== undefined) {
    const [from, to] = entry.rewrite;
    // An upgrade that changes the import fails here, at start-up and in the tests, not in a browser.
    if (text.split(from).length !== 2) throw new Error(`${entry.pkg}/${entry.file}: expected exactly one ${from}`);
    text = text.replace(from, to);
  }
  return Buffer.from(text);
}

/** Reads the console's files: its own (`shared/console/`, by extension) and the vendor modules. */
export function loadConsoleBundle(root: string = appRoot()): ConsoleBundle {
  const folder = join(root, "shared", "console");
  const assets = new Map<string, ConsoleAsset>();
  for (const file of filesUnder(folder).sort()) {
    const contentType = CONTENT_TYPES[file.slice(file.lastIndexOf("."))];
    if (contentType === undefined) continue; // type stubs, tsconfig.json, the page template
    assets.set(relative(folder, file).split(sep).join("/"), { body: readFileSync(file), contentType });
  }
  for (const entry of VENDOR)
    assets.set(entry.path, { body: vendorFile(entry), contentType: CONTENT_TYPES[".js"] ?? "" });

  const template = readFileSync(join(folder, "index.html"), "utf8");
  const hash = createHash("sha256").update(template);
  for (const [path, asset] of assets) hash.update(`\0${path}\0`).update(asset.body);
  const version = hash.digest("hex").slice(0, 16);
  return { version, page: Buffer.from(template.replaceAll("{{version}}", version)), assets };
}

let bundle: ConsoleBundle | undefined;

/** The bundle, read on first use and kept: the files do not change while the app runs. */
export const consoleBundle = (): ConsoleBundle => (bundle ??= loadConsoleBundle());
