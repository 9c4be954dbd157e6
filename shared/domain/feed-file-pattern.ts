import { z } from "zod";
import { compileGlob, type GlobMeter } from "./glob";

/**
 * Tests a base file name against a feed's `filePattern` (`*`, `?`, `[...]`, `{a,b}`; case-sensitive;
 * see `glob.ts`). Linear in the name's length whatever the pattern: names come from providers and
 * customers' containers (up to 1,024 characters), so the matching must not be theirs to slow down.
 */
export function compileFilePattern(pattern: string): (fileName: string, meter?: GlobMeter) => boolean {
  const matches = compileGlob(pattern);
  return (fileName, meter) => !fileName.includes("/") && matches(fileName, meter);
}

export const filePatternSchema = z
  .string()
  .min(1)
  .max(200)
  .superRefine((p, ctx) => {
    const problem =
      p.includes("/") || p.includes("\\")
        ? "is matched against the file name alone: no / or \\"
        : p.includes("..")
          ? "must not contain .."
          : /[\u0000-\u001f\u007f]/.test(p)
            ? "must not contain control characters"
            : p.startsWith("!")
              ? "must not start with ! (negation is not supported)"
              : undefined;
    if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({
    description: "A glob on the file's base name, e.g. positions_*.csv (*, ?, [abc], [!abc], {a,b}; case-sensitive)",
    example: "positions_*.csv",
  });
