// @ts-check
// Reading from the API in a component: the answer, the error, a pending flag, reload, and polling
// while something is still running (a delivery, an export run).
import { api } from "./api.js";
import { useEffect, useRef, useState } from "./html.js";
import { sessionState, subscribe } from "./session.js";

/**
 * @param {string | undefined} path undefined: nothing to read yet
 * @param {Record<string, string | number | undefined>} [query]
 * @param {{ pollWhile?: (body: any) => boolean, pollMs?: number }} [options]
 * @returns {{ body: any, error: import("./api.js").ApiError | undefined, loading: boolean, reload: () => void }}
 */
export function useApi(path, query = {}, options = {}) {
  const key = `${path}?${JSON.stringify(query)}`;
  const [state, setState] = useState(
    /** @type {{ key: string, body: any, error: any }} */ ({ key: "", body: undefined, error: undefined }),
  );
  const [tick, setTick] = useState(0);
  const pollWhile = useRef(options.pollWhile);
  pollWhile.current = options.pollWhile;

  useEffect(() => {
    if (path === undefined) return;
    let live = true;
    api("GET", path, { query }).then(
      (body) => live && setState({ key, body, error: undefined }),
      (error) => live && setState((s) => ({ key, body: s.key === key ? s.body : undefined, error })),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);

  // Signed in again after the session ended: read again what failed meanwhile.
  useEffect(() => subscribe(() => sessionState().session !== undefined && setTick((t) => t + 1)), []);

  useEffect(() => {
    if (state.body === undefined || pollWhile.current === undefined || !pollWhile.current(state.body)) return;
    const timer = setTimeout(() => setTick((t) => t + 1), options.pollMs ?? 1500);
    return () => clearTimeout(timer);
  }, [state]);

  const current = state.key === key;
  return {
    body: current ? state.body : undefined,
    error: current ? state.error : undefined,
    loading: !current,
    reload: () => setTick((t) => t + 1),
  };
}
