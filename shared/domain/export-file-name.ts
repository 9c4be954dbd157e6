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
const SAFE_FORMAT = /^[yMdHhmsSEaQqwIiRuLc_.-]+$/;
/** What a FORMAT may render: letters and digits, with `.`, `_` and `-` between them. */
const SAFE_OUTPUT = /^[A-Za-z0-9._-]*[A-Za-z0-9][A-Za-z0-9._-]*$/;
const UNSAFE_LITERAL = /[/\\{}\p{Cc}:*?"<>|]/u;
const UNSAFE_RENDERED = /[/\\\p{Cc}:*?"<>|]/u;
const DEFAULT_FORMAT: Record<string, string> = { date: "yyyyMMdd", time: "HHmmss" };
/** Room for the temporary name an upload writes first (`.<name>.<attempt>.part`) within the usual 255-character limit. */
export const MAX_RENDERED_LENGTH = 230;

/**
 * Moments that between them show every textual form a FORMAT's letters take: each month, each
 * weekday, morning and evening (whatever the time zone), a four-digit year.
 */
const SAMPLE_TIMES: readonly Date[] = [
  ...Array.from({ length: 12 }, (_, month) => new Date(Date.UTC(2024, month, 15, 9, 5, 7, 89))),
  ...Array.from({ length: 7 }, (_, day) => new Date(Date.UTC(2024, 0, day + 1, 21, 59, 59, 999))),
];

/** Why a FORMAT may render something unsafe, or undefined when every rendering is letters and digits with `. _ -` between. */
function formatProblem(body: string, pattern: string): string | undefined {
  if (!SAFE_FORMAT.test(pattern))
    return `{${body}}: the FORMAT may use the date-fns letters y M d H h m s S E a Q w I R u L and - _ . only`;
  for (const at of SAMPLE_TIMES) {
    let out: string;
    try {
      out = format(at, pattern);
    } catch (error) {
      return `{${body}}: ${error instanceof Error ? error.message : "not a date format"}`;
    }
    if (!SAFE_OUTPUT.test(out))
      return `{${body}} can render "${out}": a FORMAT must render letters or digits (with . _ - between them), never only separators or spaces`;
  }
  return undefined;
}

/** Why a rendered file name is unsafe to write (`.` and `..` above all), or undefined. Checked again by every run and destination. */
export function renderedNameProblem(name: string): string | undefined {
  if (name === "") return "is empty";
  if (name === "." || name === "..") return `is "${name}", a directory, not a file`;
  if (name.includes("..")) return "contains ..";
  if (name.startsWith(".")) return "starts with a dot";
  if (name.endsWith(".")) return "ends with a dot";
  if (name.trim() !== name) return "starts or ends with a space";
  if (UNSAFE_RENDERED.test(name)) return 'contains / \\ : * ? " < > | or control characters';
  if (name.length > MAX_RENDERED_LENGTH) return `is longer than ${MAX_RENDERED_LENGTH} characters`;
  return undefined;
}

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
      const problem = formatProblem(body, pattern ?? DEFAULT_FORMAT[name] ?? "");
      if (problem !== undefined) return problem;
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
  // The name as runs will render it: tokens side by side can make what the template alone does not show.
  for (const scheduledFor of SAMPLE_TIMES) {
    const rendered = renderFileName(template, {
      exportId: "ex_0123456789abcdef01",
      dataType: "fx-rates",
      format: "xlsx",
      scheduledFor,
      timezone: "UTC",
    });
    const problem = renderedNameProblem(rendered);
    if (problem !== undefined) return `renders as "${rendered}", which ${problem}`;
  }
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
