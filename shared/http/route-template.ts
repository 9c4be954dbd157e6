/**
 * Functions route templates (`api/v1/portfolios/{portfolioId}`, `{*path}`, `{id?}`, `{id:int}`,
 * `{*path:regex(...)}`), matched as the Functions host's ASP.NET routing does: case-insensitively,
 * against the path as sent, each parameter decoded on its own (so an encoded `/` stays inside its
 * segment). A `regex(...)` constraint is applied to the decoded value, case-insensitively, and like
 * ASP.NET's it refuses a parameter that has no value (an empty catch-all). Other constraints are not
 * checked. A constraint cannot contain `/`.
 */
export interface RouteTemplate {
  /** A catch-all (`{*rest}`) matches last. */
  catchAll: boolean;
  /** Literal segments: more of them match first. */
  literals: number;
  /** The decoded parameters when `path` (as sent, not decoded) matches; undefined otherwise. */
  match(path: string): Record<string, string> | undefined;
}

/** One `{…}` segment: `*` (catch-all), the name, its `:constraint`s (split outside parentheses), `?`. */
function parseParameter(
  segment: string,
): { name: string; catchAll: boolean; optional: boolean; regex?: RegExp } | undefined {
  if (!segment.startsWith("{") || !segment.endsWith("}")) return undefined;
  let inner = segment.slice(1, -1);
  const catchAll = inner.startsWith("*");
  if (catchAll) inner = inner.slice(1);
  const optional = inner.endsWith("?");
  if (optional) inner = inner.slice(0, -1);
  const constraints: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of inner) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === ":" && depth === 0) {
      constraints.push(current);
      current = "";
    } else current += ch;
  }
  constraints.push(current);
  const name = constraints.shift() ?? "";
  if (!/^[A-Za-z0-9_]+$/.test(name)) return undefined;
  const regex = constraints.map((c) => /^regex\((.*)\)$/s.exec(c)?.[1]).find((r) => r !== undefined);
  return { name, catchAll, optional, ...(regex !== undefined ? { regex: new RegExp(regex, "i") } : {}) };
}

export function compileRoute(template: string): RouteTemplate {
  const names: string[] = [];
  const constraints = new Map<string, RegExp>();
  let catchAll = false;
  let literals = 0;
  const parts = template
    .replace(/^\/+|\/+$/g, "")
    .split("/")
    .map((segment) => {
      const param = parseParameter(segment);
      if (param === undefined) {
        literals++;
        return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
      }
      names.push(param.name);
      if (param.regex !== undefined) constraints.set(param.name, param.regex);
      if (param.catchAll) {
        catchAll = true;
        return "(?:/(.*))?";
      }
      return param.optional ? "(?:/([^/]+))?" : "/([^/]+)";
    });
  const pattern = new RegExp(`^${parts.join("")}/?$`, "i");
  return {
    catchAll,
    literals,
    match(path) {
      const m = pattern.exec(path.startsWith("/") ? path : `/${path}`);
      if (m === null) return undefined;
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        const value = m[i + 1];
        if (value !== undefined) params[name] = decodeSegment(value);
      });
      // As ASP.NET's regex constraint: a parameter without a value (an empty catch-all) does not match.
      for (const [name, regex] of constraints) {
        const value = params[name];
        if (value === undefined || value === "" || !regex.test(value)) return undefined;
      }
      return params;
    },
  };
}

/** A malformed escape is handed on as sent; the function's own checks answer it. */
function decodeSegment(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
