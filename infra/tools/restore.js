// `node infra/tools/restore.js`: the tools that check infra/ and its hooks, found or restored once.
//
// - bicep: `bicep` on PATH (an operator has it through `az bicep install`), else the Bicep CLI that NuGet
//   ships as Azure.Bicep.CommandLine.linux-x64, restored by the .NET SDK through tools.csproj.
// - pwsh: `pwsh` on PATH, else PowerShell's .NET global tool, installed by the .NET SDK.
//
// Restored tools live in infra/.tools/ (git ignores it), so only the first run on a machine downloads.
// Prints {"bicep": path | null, "pwsh": path | null, "problems": [...]} as JSON; a tool that could not be
// had is null, with the reason in `problems` (the tests turn that into a loud failure or skip).
"use strict";
const { execFileSync } = require("node:child_process");
const { existsSync, mkdirSync, rmSync, statSync } = require("node:fs");
const { delimiter, join } = require("node:path");

const BICEP_VERSION = "0.49.2";
const PWSH_VERSION = "7.6.9";
const here = __dirname;
const cache = join(here, "..", ".tools");

/** The first executable named `name` on PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** Runs `work` holding a lock folder, so that parallel test workers restore once, one after the other. */
function locked(work) {
  mkdirSync(cache, { recursive: true });
  const lock = join(cache, ".lock");
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
      // A lock older than the longest restore was left by a killed process.
      if (Date.now() - statSync(lock).mtimeMs > 300_000) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`infra/tools: waited 5 minutes for ${lock}`, { cause: error });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return work();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const run = (command, args) =>
  execFileSync(command, args, { cwd: here, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000 });

function bicep(problems) {
  const found = onPath("bicep");
  if (found !== undefined) return found;
  if (process.platform !== "linux" || process.arch !== "x64") {
    problems.push(
      `bicep: not on PATH, and NuGet's Bicep CLI is restored here for linux-x64 only (this is ${process.platform}-${process.arch}); install it with 'az bicep install'`,
    );
    return null;
  }
  const packages = join(cache, "nuget");
  const binary = join(packages, "azure.bicep.commandline.linux-x64", BICEP_VERSION, "tools", "bicep");
  if (existsSync(binary)) return binary;
  if (onPath("dotnet") === undefined) {
    problems.push(
      "bicep: not on PATH, and there is no .NET SDK (dotnet) to restore Azure.Bicep.CommandLine.linux-x64 from NuGet",
    );
    return null;
  }
  try {
    locked(() => {
      if (!existsSync(binary)) run("dotnet", ["restore", join(here, "tools.csproj"), "--packages", packages]);
    });
  } catch (error) {
    problems.push(
      `bicep: 'dotnet restore infra/tools/tools.csproj' failed: ${String(error.stderr || error.stdout || error.message).trim()}`,
    );
    return null;
  }
  // NuGet does not keep the execute bit of a package's files.
  execFileSync("chmod", ["+x", binary]);
  return binary;
}

function pwsh(problems) {
  const found = onPath("pwsh");
  if (found !== undefined) return found;
  const dir = join(cache, "pwsh");
  const binary = join(dir, process.platform === "win32" ? "pwsh.exe" : "pwsh");
  if (existsSync(binary)) return binary;
  if (onPath("dotnet") === undefined) {
    problems.push("pwsh: not on PATH, and there is no .NET SDK (dotnet) to install PowerShell's .NET tool");
    return null;
  }
  try {
    locked(() => {
      if (!existsSync(binary))
        run("dotnet", ["tool", "install", "PowerShell", "--version", PWSH_VERSION, "--tool-path", dir]);
    });
  } catch (error) {
    problems.push(
      `pwsh: 'dotnet tool install PowerShell --version ${PWSH_VERSION}' failed: ${String(error.stderr || error.stdout || error.message).trim()}`,
    );
    return null;
  }
  return binary;
}

function restoreTools() {
  const problems = [];
  return { bicep: bicep(problems), pwsh: pwsh(problems), problems };
}

module.exports = { restoreTools };

if (require.main === module) process.stdout.write(`${JSON.stringify(restoreTools())}\n`);
