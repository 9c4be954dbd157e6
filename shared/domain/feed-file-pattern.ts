import picomatch from "picomatch";
import { z } from "zod";

const GLOB_OPTIONS = { nonegate: true, noextglob: true, strictSlashes: true } as const;

/** Tests a base file name against a feed's `filePattern` (`*`, `?`, `[...]`, `{a,b}`; case-sensitive). */
export function compileFilePattern(pattern: string): (fileName: string) => boolean {
  const matcher = picomatch(pattern, GLOB_OPTIONS);
  return (fileName) => !fileName.includes("/") && matcher(fileName);
}

export const filePatternSchema = z
  .string()
  .min(1)
  .max(200)
  .superRefine((p, ctx) => {
    const problem = p.includes("/") || p.includes("\\")
      ? "is matched against the file name alone: no / or \\"
      : p.includes("..")
        ? "must not contain .."
        : /[\u0000-\u001f\u007f]/.test(p)
          ? "must not contain control characters"
          : p.startsWith("!")
            ? "must not start with ! (negation is not supported)"
            : undefined;
    if (problem !== undefined) {
      ctx.addIssue({ code: "custom", message: problem });
      return;
    }
    try {
      picomatch.makeRe(p, GLOB_OPTIONS);
    } catch {
      ctx.addIssue({ code: "custom", message: "is not a valid glob pattern" });
    }
  })
  .meta({ description: "A glob on the file's base name, e.g. positions_*.csv (*, ?, [abc], {a,b}; case-sensitive)", example: "positions_*.csv" });
