// @ts-check
// The runs of something that runs (an export, a blob source): its pages of runs, refreshed while one
// is running, and Run now, which starts one and shows it at the top of the list.
import { api } from "./api.js";
import { useState } from "./html.js";
import { useApi } from "./use-api.js";

/** @param {string} path the item's settings path; its runs are `${path}/runs`, Run now `POST ${path}/run` */
export function useRuns(path) {
  const [page, setPage] = useState(1);
  const runs = useApi(
    `${path}/runs`,
    { page, pageSize: 20 },
    {
      pollWhile: (body) => body.data.some((/** @type {any} */ r) => r.status === "running" || r.status === "retrying"),
    },
  );
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
