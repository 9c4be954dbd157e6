// @ts-check
// The runs of something that runs (an export, a blob source): its pages of runs, refreshed while one
// is running, and Run now, which starts one and shows it at the top of the list.
import { api } from "./api.js";
import { useEffect, useRef, useState } from "./html.js";
import { useApi } from "./use-api.js";

/**
 * @param {string} path the item's settings path; its runs are `${path}/runs`, Run now `POST ${path}/run`
 * @param {() => void} [onRunChanged] called when the newest run is another one or its status changed
 *   since it was last read (a run started, ended, retries): the item's own summary of it (its last
 *   run) is then stale, and the page reads the item again
 */
export function useRuns(path, onRunChanged) {
  const [page, setPage] = useState(1);
  const runs = useApi(
    `${path}/runs`,
    { page, pageSize: 20 },
    {
      pollWhile: (body) => body.data.some((/** @type {any} */ r) => r.status === "running" || r.status === "retrying"),
    },
  );
  const newest = runs.body?.data?.[0];
  const signature = newest === undefined ? "" : `${newest.id} ${newest.status}`;
  const seen = useRef(/** @type {string | undefined} */ (undefined));
  const changed = useRef(onRunChanged);
  changed.current = onRunChanged;
  useEffect(() => {
    // Only the first page's newest run counts (another page is older runs), and not the first read.
    if (runs.body === undefined || page !== 1) return;
    if (seen.current !== undefined && seen.current !== signature) changed.current?.();
    seen.current = signature;
  }, [signature, runs.body === undefined, page]);
  const [starting, setStarting] = useState(false);

  /** @param {(notice: string) => void} setNotice */
  const runNow = async (setNotice) => {
    setStarting(true);
    try {
      await api("POST", `${path}/run`);
      setNotice("Run started: it is listed below and updates as it goes.");
      setPage(1);
      runs.reload();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    } finally {
      setStarting(false);
    }
  };
  return { page, setPage, runs, starting, runNow };
}
