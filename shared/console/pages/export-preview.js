// @ts-check
// The next runs of the export being edited and each run's file, from POST
// /api/v1/settings/exports/preview (the scheduler's own rules), asked again after a pause in typing.
import { inWords, labelOfField } from "../lib/words.js";
import { api } from "../lib/api.js";
import { zonedTime } from "../lib/format.js";
import { html, useEffect, useState } from "../lib/html.js";
import { scheduleBody } from "./export-values.js";

/** @typedef {import("./export-values.js").ExportValues} ExportValues */

/**
 * The next runs and their file names, asked of the service as the form changes (after a pause in typing).
 * @param {ExportValues} v @param {string | undefined} exportId
 */
export function usePreview(v, exportId) {
  const [preview, setPreview] = useState(/** @type {{ runs?: any, problem?: string } | undefined} */ (undefined));
  const request = {
    dataType: v.dataType,
    format: v.format,
    schedule: scheduleBody(v.schedule, false),
    fileName: v.fileName,
    ...(exportId ? { exportId } : {}),
  };
  const key = JSON.stringify(request);
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api("POST", "api/v1/settings/exports/preview", { json: request }).then(
        (answer) => live && setPreview({ runs: answer.data }),
        (error) =>
          live &&
          setPreview({
            problem: error.details?.[0] ? previewProblem(error.details[0]) : error.message,
          }),
      );
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return preview;
}

/** @param {{ preview: ReturnType<typeof usePreview> }} props */
export function Preview({ preview }) {
  let content;
  if (preview === undefined) content = html`<p>Working out the next runs…</p>`;
  else if (preview.problem) content = html`<p>No preview yet: ${preview.problem}</p>`;
  else {
    const { timezone, nextRuns } = preview.runs;
    content = html`<p>Next file: <strong class="mono">${nextRuns[0]?.fileName}</strong></p>
      <p>Next runs (${timezone}):</p>
      <ul>${nextRuns.map((/** @type {any} */ r) => html`<li>${zonedTime(r.at, timezone)}: <span class="mono">${r.fileName}</span></li>`)}</ul>`;
  }
  return html`<div class="preview" role="status" aria-live="polite" aria-label="Preview of the next runs">${content}</div>`;
}

/** "Time zone: is not an IANA time zone (…)": the field as the form labels it, the complaint in words. @param {{ field: string, message: string }} d */
function previewProblem(d) {
  const label = labelOfField(d.field).replace(/^timezone$/, "time zone");
  return `${label.replace(/^\w/, (c) => c.toUpperCase())}: ${inWords(d.message, label)}`;
}
