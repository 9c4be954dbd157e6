import { TZDate } from "@date-fns/tz";
import { format } from "date-fns";

/** What a file name's tokens are rendered from. */
export interface FileNameContext {
  exportId: string;
  dataType: string;
  format: string;
  /** The run's scheduled time (a manual run's: when it was asked for). */
  scheduledFor: Date;
  timezone: string;
}

const TOKEN = /\{([^{}]*)\}/g;
/**
 * date-fns pattern letters that render digits, month/day names or AM/PM only — never a separator,
 * so never a `/`. `Y` and `D` (week-numbering year, day of year) are left out: they are the usual
 * mistakes for `y` and `d`.
 */
const SAFE_FORMAT = /^[yMdHhmsSEaQqwIiRuLc_.\-]+$/;
const UNSAFE_LITERAL = /[/\\{}\p{Cc}:*?"<>|]/u;
const DEFAULT_FORMAT: Record<string, string> = { date: "yyyyMMdd", time: "HHmmss" };

/** Why `template` cannot name a file, or undefined when it can. Checked when an export is saved, so a run never meets a bad name. */
export function fileNameProblem(template: string): string | undefined {
  let literal = "";
  let last = 0;
  for (const match of template.matchAll(TOKEN)) {
    literal += template.slice(last, match.index);
    last = match.index + match[0].length;
    const body = match[1] ?? "";
    const colon = body.indexOf(":");
    const name = colon < 0 ? body : body.slice(0, colon);
    const pattern = colon < 0 ? undefined : body.slice(colon + 1);
    if (name === "date" || name === "time") {
      if (pattern !== undefined && !SAFE_FORMAT.test(pattern)) return `{${body}}: the FORMAT may use the date-fns letters y M d H h m s S E a Q w I R u L and - _ . only`;
      try {
        format(new Date(0), pattern ?? DEFAULT_FORMAT[name] ?? "");
      } catch (error) {
        return `{${body}}: ${error instanceof Error ? error.message : "not a date format"}`;
      }
    } else if (name === "dataType" || name === "format" || name === "exportId") {
      if (pattern !== undefined) return `{${name}} takes no FORMAT`;
    } else {
      return `unknown token {${body}}; the tokens are {dataType}, {format}, {date:FORMAT}, {time:FORMAT} and {exportId}`;
    }
  }
  literal += template.slice(last);
  if (UNSAFE_LITERAL.test(literal)) return 'must not contain / \\ : * ? " < > | control characters or unmatched braces';
  if (template.includes("..")) return "must not contain ..";
  if (template.trim() !== template) return "must not start or end with a space";
  if (template.startsWith(".")) return "must not start with a dot";
  return undefined;
}

/** The file name of one run: the tokens rendered in the export's time zone for the run's scheduled time. */
export function renderFileName(template: string, context: FileNameContext): string {
  const local = new TZDate(context.scheduledFor.getTime(), context.timezone);
  return template.replace(TOKEN, (_whole, body: string) => {
    const colon = body.indexOf(":");
    const name = colon < 0 ? body : body.slice(0, colon);
    const pattern = colon < 0 ? undefined : body.slice(colon + 1);
    switch (name) {
      case "dataType":
        return context.dataType;
      case "format":
        return context.format;
      case "exportId":
        return context.exportId;
      case "date":
      case "time":
        return format(local, pattern ?? DEFAULT_FORMAT[name] ?? "");
      default:
        throw new Error(`unknown file name token {${body}}`);
    }
  });
}
