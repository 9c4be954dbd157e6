import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The parts of a V8 `.cpuprofile` (written by `node --cpu-prof`) that a self-time summary needs. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export interface FrameTime {
  frame: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Self time by function (name, file and line). */
  frames: FrameTime[];
  /** Self time by where the code lives: a package under node_modules, a project folder, or a V8 pseudo-frame. */
  places: FrameTime[];
}

const shortUrl = (url: string): string =>
  url
    .replace(/^file:\/\//, "")
    .replace(/^.*\/node_modules\//, "")
    .replace(/^.*\/dist\//, "");

function placeOf(url: string, name: string): string {
  if (url === "") return `(${name.replace(/[()]/g, "") || "native"})`;
  const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage?.[1] !== undefined) return inPackage[1];
  if (url.startsWith("node:")) return "node:*";
  const inProject = /\/dist\/([^/]+(?:\/[^/]+)?)\//.exec(url);
  return inProject?.[1] ?? shortUrl(url);
}

function rank(times: Map<string, number>, total: number, top: number): FrameTime[] {
  return [...times.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([frame, ms]) => ({ frame, ms, share: total === 0 ? 0 : ms / total }));
}

/** Self time per frame of one profile: each sample's interval charged to the frame it landed in. */
export function summariseProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const frames = new Map<string, number>();
  const places = new Map<string, number>();
  let totalMs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    if (node === undefined) return;
    const { functionName, url, lineNumber } = node.callFrame;
    const frame =
      url === ""
        ? `(${functionName || "anonymous"})`
        : `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}`;
    frames.set(frame, (frames.get(frame) ?? 0) + ms);
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + ms);
    totalMs += ms;
  });
  return { totalMs, frames: rank(frames, totalMs, top), places: rank(places, totalMs, top) };
}

const line = (t: FrameTime): string =>
  `  ${(t.share * 100).toFixed(1).padStart(5)}%  ${(t.ms / 1000).toFixed(1).padStart(7)} s  ${t.frame}`;

/** The summary as text: top frames by self time, then self time by package or project folder. */
export function formatSummary(title: string, summary: ProfileSummary): string {
  const idle = summary.frames.find((f) => f.frame === "(idle)")?.ms ?? 0;
  return [
    `${title}: ${(summary.totalMs / 1000).toFixed(1)} s sampled, ${((summary.totalMs - idle) / 1000).toFixed(1)} s busy`,
    "top frames by self time:",
    ...summary.frames.map(line),
    "self time by package / folder:",
    ...summary.places.map(line),
  ].join("\n");
}

/** `node dist/bench/profile-summary.js <dir|file.cpuprofile>...`: a summary of each profile. */
function main(): void {
  const files = process.argv.slice(2).flatMap((arg) =>
    arg.endsWith(".cpuprofile")
      ? [arg]
      : readdirSync(arg)
          .filter((f) => f.endsWith(".cpuprofile"))
          .map((f) => join(arg, f)),
  );
  const top = Number(process.env.PROFILE_TOP ?? 15);
  for (const file of files)
    console.log(
      `${formatSummary(file, summariseProfile(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, top))}\n`,
    );
}

if (require.main === module) main();
