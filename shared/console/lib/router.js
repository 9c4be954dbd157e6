// @ts-check
// Pages are addressed by the URL's fragment (#/webhooks, #/webhooks/wh_1, #/jobs?status=failed): one
// page load, no server routes, and nothing in the URL but ids and filters (never a token or secret).
import { useEffect, useState } from "./html.js";

/** @typedef {{ area: string, id: string | undefined, query: URLSearchParams, key: string }} Route */

/** @returns {Route} */
export function currentRoute() {
  const hash = location.hash.startsWith("#/") ? location.hash.slice(2) : "";
  const [path = "", search = ""] = hash.split("?");
  const [area = "", id] = path.split("/").map((part) => decodeURIComponent(part));
  return { area, id: id === "" ? undefined : id, query: new URLSearchParams(search), key: hash };
}

/** @param {string} area @param {string} [id] @param {Record<string, string | undefined>} [query] */
export function href(area, id, query = {}) {
  const search = new URLSearchParams(
    /** @type {Record<string, string>} */ (
      Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ""))
    ),
  ).toString();
  return `#/${area}${id === undefined ? "" : `/${encodeURIComponent(id)}`}${search === "" ? "" : `?${search}`}`;
}

/** @param {string} target a `#/…` address from href() */
export function navigate(target) {
  if (location.hash !== target) location.hash = target;
}

/** @param {string} target replaces the current address (a filter change is not a step back) */
export function replace(target) {
  history.replaceState(null, "", target);
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}

export function useRoute() {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return route;
}
