// @ts-check
// The mapping editor: one row per field of the data type's import record (read from the service's
// OpenAPI document, so that it lists exactly what the import accepts), each with its source and,
// when needed, a constant, a date format, a value map or a multiplier.
import { inWords } from "../lib/words.js";
import { html, useEffect, useState } from "../lib/html.js";
import { ApiError, apiUrl } from "../lib/api.js";

/** The OpenAPI schema of each data type's import record. */
const RECORD_SCHEMAS = /** @type {Record<string, string>} */ ({
  positions: "PositionImport",
  transactions: "TransactionImport",
  prices: "PriceImport",
  "fx-rates": "FxRateImport",
  securities: "SecurityImport",
});

/** @type {Promise<any> | undefined} */
let openapi;

/** The target fields of a data type: name and whether the record requires it. @param {string} dataType */
export function useTargetFields(dataType) {
  const [fields, setFields] = useState(
    /** @type {{ name: string, required: boolean, description?: string }[] | undefined} */ (undefined),
  );
  useEffect(() => {
    openapi ??= fetch(apiUrl("api/v1/openapi.json")).then((r) => r.json());
    let live = true;
    openapi.then((doc) => {
      const schema = doc.components.schemas[RECORD_SCHEMAS[dataType] ?? ""];
      const required = new Set(schema?.required ?? []);
      if (live)
        setFields(
          Object.entries(schema?.properties ?? {}).map(([name, p]) => ({
            name,
            required: required.has(name),
            description: /** @type {any} */ (p).description,
          })),
        );
    });
    return () => {
      live = false;
    };
  }, [dataType]);
  return fields;
}

/** @typedef {{ source: string, value: string, format: string, map: string, multiply: string }} RuleText */

/** The editor's text for a stored rule. @param {unknown} rule @returns {RuleText} */
export function ruleText(rule) {
  if (typeof rule === "string") return { source: rule, value: "", format: "", map: "", multiply: "" };
  const r = /** @type {any} */ (rule ?? {});
  return {
    source: r.source ?? "",
    value: r.value === undefined ? "" : String(r.value),
    format: r.format ?? "",
    map: Object.entries(r.map ?? {})
      .map(([from, to]) => `${from}=${to}`)
      .join("\n"),
    multiply: r.multiply === undefined ? "" : String(r.multiply),
  };
}

/** A number when the text is one. @param {string} s */
const numeric = (s) => (/^-?\d+(\.\d+)?$/.test(s.trim()) ? Number(s) : s);

/**
 * The API's mapping from the editor's rows: a plain source where that is all, else a rule. Complaints
 * about a value map's lines are thrown as the API would, so that they show beside the row.
 * @param {Record<string, RuleText>} rows
 */
export function mappingBody(rows) {
  /** @type {Record<string, unknown>} */
  const mapping = {};
  /** @type {{ field: string, message: string }[]} */
  const problems = [];
  for (const [field, r] of Object.entries(rows)) {
    const lines = r.map
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    /** @type {Record<string, unknown>} */
    const map = {};
    for (const line of lines) {
      const eq = line.indexOf("=");
      if (eq <= 0) problems.push({ field: `mapping.${field}.map`, message: `"${line}": write one FROM=TO per line` });
      else map[line.slice(0, eq).trim()] = numeric(line.slice(eq + 1).trim());
    }
    const extra = r.value !== "" || r.format !== "" || lines.length > 0 || r.multiply !== "";
    if (!extra && r.source.trim() === "") continue;
    mapping[field] = !extra
      ? r.source.trim()
      : {
          ...(r.source.trim() ? { source: r.source.trim() } : {}),
          ...(r.value !== "" ? { value: numeric(r.value) } : {}),
          ...(r.format ? { format: r.format } : {}),
          ...(lines.length > 0 ? { map } : {}),
          ...(r.multiply !== "" ? { multiply: numeric(r.multiply) } : {}),
        };
  }
  if (problems.length > 0) throw new ApiError("client", "Some value maps cannot be read.", { details: problems });
  return mapping;
}

/**
 * @param {{ form: import("../lib/form.js").Form, dataType: string, format: string }} props
 */
export function MappingEditor({ form, dataType, format }) {
  const fields = useTargetFields(dataType);
  const [open, setOpen] = useState(/** @type {string | undefined} */ (undefined));
  const sourceHint =
    format === "csv" || format === "xlsx"
      ? "column header"
      : format === "fix"
        ? "FIX tag, e.g. 55"
        : "dotted path, @attr for attributes";
  if (fields === undefined) return html`<p class="loading" role="status">Loading the fields of ${dataType}…</p>`;
  form.claim("mapping");
  const general = form.errorsFor("mapping").filter((d) => d.field === "mapping");
  return html`<fieldset class="field mapping">
    <legend>Mapping</legend>
    <p class="hint">For each field of a ${dataType} record, where its value comes from in the file (${sourceHint}). Leave a field empty to leave it out.</p>
    ${general.length > 0 ? html`<p class="field-error">${general.map((d) => inWords(d.message, "mapping")).join("; ")}</p>` : null}
    <div class="table-wrap" tabindex="0" role="region" aria-label="Mapping">
      <table>
        <thead><tr><th scope="col">Field</th><th scope="col">Source</th><th scope="col">Rule</th></tr></thead>
        <tbody>
          ${fields.map((f) => {
            const name = `mapping.${f.name}`;
            const errors = form.errorsFor(name);
            const r = /** @type {RuleText} */ (form.get(name) ?? ruleText(undefined));
            const set = (/** @type {keyof RuleText} */ key) => (/** @type {Event} */ e) =>
              form.set(name, { ...r, [key]: /** @type {HTMLInputElement} */ (e.currentTarget).value });
            const id = `map-${f.name}`;
            const extra = r.value || r.format || r.map || r.multiply;
            return html`<tr key=${f.name}>
              <th scope="row" class="mono">${f.name}${f.required ? html`<span class="required-mark">required</span>` : null}</th>
              <td>
                <input id=${id} aria-label=${`Source of ${f.name}`} value=${r.source} onInput=${set("source")} spellcheck=${false}
                  aria-invalid=${errors.length > 0 ? "true" : undefined} aria-describedby=${errors.length > 0 ? `${id}-error` : undefined} />
                ${errors.length > 0 ? html`<p class="field-error" id=${`${id}-error`}>${errors.map((d) => inWords(d.message, `source of ${f.name}`)).join("; ")}</p>` : null}
                ${
                  open === f.name
                    ? html`<div class="rule">
                      <label>Constant value<input value=${r.value} onInput=${set("value")} /></label>
                      <label>Date format<input value=${r.format} onInput=${set("format")} placeholder="dd.MM.yyyy" /></label>
                      <label>Multiply by<input value=${r.multiply} onInput=${set("multiply")} inputmode="decimal" placeholder="0.01" /></label>
                      <label>Value map (FROM=TO, one per line)<textarea rows="3" value=${r.map} onInput=${set("map")} placeholder="B=buy"></textarea></label>
                    </div>`
                    : null
                }
              </td>
              <td>
                <button type="button" class="small" aria-expanded=${open === f.name} aria-label=${`Rule options for ${f.name}`}
                  onClick=${() => setOpen(open === f.name ? undefined : f.name)}>${extra ? "Rule (set)" : "Rule"}</button>
              </td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </fieldset>`;
}
