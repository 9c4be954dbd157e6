/**
 * Functions route templates (`api/v1/portfolios/{portfolioId}`, `{*path}`, `{id?}`, `{id:int}`),
 * matched as the Functions host's ASP.NET routing does: case-insensitively, against the path as sent,
 * each parameter decoded on its own (so an encoded `/` stays inside its segment).
 */
export interface RouteTemplate {
  /** A catch-all (`{*rest}`) matches last. */
  catchAll: boolean;
  /** Literal segments: more of them match first. */
  literals: number;
  /** The decoded parameters when `path` (as sent, not decoded) matches; undefined otherwise. */
  match(path: string): Record<string, string> | undefined;
}

export function compileRoute(template: string): RouteTemplate {
  const names: string[] = [];
  let catchAll = false;
  let literals = 0;
  const parts = template
    .replace(/^\/+|\/+$/g, "")
    .split("/")
    .map((segment) => {
      const param = /^\{(\*?)([A-Za-z0-9_]+)(?::[^}?]*)?(\??)\}$/.exec(segment);
      if (param === null) {
        literals++;
        return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`;
      }
      names.push(param[2] ?? "");
      if (param[1] === "*") {
        catchAll = true;
        return "(?:/(.*))?";
      }
      return param[3] === "?" ? "(?:/([^/]+))?" : "/([^/]+)";
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
