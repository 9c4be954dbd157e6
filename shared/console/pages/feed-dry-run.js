// @ts-check
// A dry run of a sample file: exactly the first pass a delivered file gets (read, mapped, validated
// under the feed's rules), with its verdict, the first mapped records and the row errors; nothing is
// written.
import { api } from "../lib/api.js";
import { count, size } from "../lib/format.js";
import { html, useId, useState } from "../lib/html.js";
import { Status, Table } from "../ui/bits.js";

/** @param {{ feedPath: string, filePattern: string }} props */
export function DryRun({ feedPath, filePattern }) {
  const id = useId();
  const [file, setFile] = useState(/** @type {File | undefined} */ (undefined));
  const [pending, setPending] = useState(false);
  const [result, setResult] = useState(/** @type {any} */ (undefined));
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const run = async (/** @type {Event} */ e) => {
    e.preventDefault();
    if (file === undefined || pending) {
      if (file === undefined) setError("Choose a sample file first.");
      return;
    }
    setPending(true);
    setError(undefined);
    setResult(undefined);
    try {
      setResult((await api("POST", `${feedPath}/test`, { query: { fileName: file.name }, file })).data);
    } catch (failure) {
      const f = /** @type {any} */ (failure);
      setError(
        f.details?.length
          ? `${f.message} ${f.details.map((/** @type {any} */ d) => `${d.field}: ${d.message}`).join("; ")}`
          : f.message,
      );
    } finally {
      setPending(false);
    }
  };
  return html`<section class="panel" aria-labelledby=${`${id}-heading`}>
    <h2 id=${`${id}-heading`}>Dry run with a sample file</h2>
    <form class="form" noValidate onSubmit=${run} aria-busy=${pending ? "true" : undefined}>
      <div class="field">
        <label for=${`${id}-file`}>Sample file</label>
        <input id=${`${id}-file`} type="file" aria-describedby=${`${id}-hint`}
          onChange=${(/** @type {Event} */ e) => setFile(/** @type {HTMLInputElement} */ (e.currentTarget).files?.[0])} />
        <p class="hint" id=${`${id}-hint`}>Up to 10 MB. Its name must match <code>${filePattern}</code>. Nothing is written.</p>
      </div>
      <div class="buttons"><button type="submit" class="primary" aria-disabled=${pending ? "true" : undefined}>${pending ? "Checking…" : "Run dry run"}</button></div>
    </form>
    ${pending && file ? html`<p class="progress" role="status">Reading, mapping and validating ${file.name} (${size(file.size)})…</p>` : null}
    <div role="alert" class=${error ? "form-alert" : "form-alert empty"}>${error ? html`<p>${error}</p>` : null}</div>
    ${result ? html`<${DryRunResult} result=${result} />` : null}
  </section>`;
}

/** @param {{ result: any }} props */
function DryRunResult({ result }) {
  /** @type {Record<string, unknown>[]} */
  const preview = result.preview;
  const columns = [...new Set(preview.flatMap((r) => Object.keys(r)))];
  return html`<div class="dry-run" role="status">
    <p class=${result.verdict === "accepted" ? "success" : "failure"}>
      <${Status} value=${result.verdict} /> ${count(result.received)} records: ${count(result.valid)} valid, ${count(result.rejected)} rejected.
      ${result.verdict === "accepted" ? " Delivered live, its valid rows would be written." : ` Delivered, the file would be quarantined: ${result.reason ?? "rows were rejected"}.`}
    </p>
    <h3>Preview (the first ${preview.length} mapped records)</h3>
    <${Table} caption="Preview of the mapped records" head=${columns} empty="No valid record to preview."
      rows=${preview.map((r) => html`<tr>${columns.map((c) => html`<td>${r[c] === undefined || r[c] === null ? "" : String(r[c])}</td>`)}</tr>`)} />
    <h3>Row errors${result.errorsTruncated ? ` (the first ${result.errors.length})` : ""}</h3>
    <${Table} numeric=${["Row"]} caption="Row errors" head=${["Row", "Field", "Column", "Message"]} empty="No row errors."
      rows=${result.errors.map((/** @type {any} */ e) => html`<tr><td class="num">${e.row}</td><td class="mono">${e.field}</td><td>${e.column ?? ""}</td><td class="wrap">${e.message}</td></tr>`)} />
  </div>`;
}
