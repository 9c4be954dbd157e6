// @ts-check
// Labelled controls bound to a form (lib/form.js): each shows its hint and the API's complaints about
// it, linked with aria-describedby, and says aria-invalid while it has one.
import { html, useId } from "../lib/html.js";
import { inWords, labelOfField } from "../lib/words.js";

/** @typedef {import("../lib/form.js").Form} Form */
/** @typedef {[string, string]} Option value, label */

/**
 * @param {{ form: Form, name: string, label: string, id: string, hintId: string, errorId: string, hint?: unknown }} props
 */
function describe({ form, name, label, hintId, errorId, hint }) {
  form.claim(name);
  const errors = form.errorsFor(name);
  const ids = [hint ? hintId : "", errors.length > 0 ? errorId : ""].filter(Boolean).join(" ");
  return {
    invalid: errors.length > 0,
    describedBy: ids === "" ? undefined : ids,
    below: html`${hint ? html`<p class="hint" id=${hintId}>${hint}</p>` : null}
    ${errors.length > 0 ? html`<p class="field-error" id=${errorId}>${errors.map((e) => inWords(e.message, label)).join("; ")}</p>` : null}`,
  };
}

/**
 * A text box, text area or drop-down named `name` in the form's values.
 * @param {{ form: Form, name: string, label: string, hint?: unknown, type?: string, options?: Option[], rows?: number,
 *   placeholder?: string, autocomplete?: string, list?: string, inputMode?: string, onValue?: (value: string) => unknown, class?: string,
 *   errorName?: string }} props `errorName`: the API field whose complaints it shows, when not `name`
 */
export function Field(props) {
  const { form, name, label, hint, type = "text", options, rows } = props;
  const id = useId();
  const d = describe({
    form,
    name: props.errorName ?? name,
    label,
    id,
    hintId: `${id}-hint`,
    errorId: `${id}-error`,
    hint,
  });
  const value = form.get(name) ?? "";
  /** @param {Event} event */
  const onInput = (event) => {
    const raw = /** @type {HTMLInputElement} */ (event.currentTarget).value;
    form.set(name, props.onValue ? props.onValue(raw) : raw);
  };
  const common = { id, "aria-invalid": d.invalid ? "true" : undefined, "aria-describedby": d.describedBy };
  let control;
  if (options !== undefined) {
    control = html`<select ...${common} value=${String(value)} onChange=${onInput}>
      ${options.map(([v, text]) => html`<option value=${v}>${text}</option>`)}
    </select>`;
  } else if (type === "textarea") {
    control = html`<textarea
      ...${common}
      rows=${rows ?? 4}
      value=${value}
      onInput=${onInput}
      placeholder=${props.placeholder}
      spellcheck=${false}
    ></textarea>`;
  } else {
    control = html`<input
      ...${common}
      type=${type}
      value=${value}
      onInput=${onInput}
      placeholder=${props.placeholder}
      autocomplete=${props.autocomplete ?? "off"}
      list=${props.list}
      inputmode=${props.inputMode}
      spellcheck=${false}
    />`;
  }
  return html`<div class=${`field ${d.invalid ? "invalid" : ""} ${props.class ?? ""}`}>
    <label for=${id}>${label}</label>
    ${control} ${d.below}
  </div>`;
}

/**
 * One checkbox per option; the value is the array of checked option values.
 * @param {{ form: Form, name: string, legend: string, options: Option[], hint?: unknown, extra?: (value: string) => unknown }} props
 */
export function CheckboxGroup({ form, name, legend, options, hint, extra }) {
  const id = useId();
  const d = describe({ form, name, label: legend, id, hintId: `${id}-hint`, errorId: `${id}-error`, hint });
  /** @type {string[]} */
  const checked = form.get(name) ?? [];
  /** @param {string} value @param {boolean} on */
  const toggle = (value, on) =>
    form.set(name, on ? [...checked.filter((v) => v !== value), value] : checked.filter((v) => v !== value));
  return html`<fieldset class=${`field checks ${d.invalid ? "invalid" : ""}`} aria-describedby=${d.describedBy}>
    <legend>${legend}</legend>
    ${options.map(
      ([value, text]) =>
        html`<div class="check">
          <input
            type="checkbox"
            id=${`${id}-${value}`}
            checked=${checked.includes(value)}
            aria-invalid=${d.invalid ? "true" : undefined}
            onChange=${(/** @type {Event} */ e) => toggle(value, /** @type {HTMLInputElement} */ (e.currentTarget).checked)}
          />
          <label for=${`${id}-${value}`}>${text}</label>
          ${extra ? extra(value) : null}
        </div>`,
    )}
    ${d.below}
  </fieldset>`;
}

/**
 * A single checkbox (a yes/no value).
 * @param {{ form: Form, name: string, label: string, hint?: unknown }} props
 */
export function Checkbox({ form, name, label, hint }) {
  const id = useId();
  const d = describe({ form, name, label, id, hintId: `${id}-hint`, errorId: `${id}-error`, hint });
  return html`<div class="field check">
    <input
      type="checkbox"
      id=${id}
      checked=${Boolean(form.get(name))}
      aria-describedby=${d.describedBy}
      onChange=${(/** @type {Event} */ e) => form.set(name, /** @type {HTMLInputElement} */ (e.currentTarget).checked)}
    />
    <label for=${id}>${label}</label>
    ${d.below}
  </div>`;
}

/** @param {string} text */
const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * The failure that no field claimed: what the service said, and its complaints about fields not on
 * the form. Focused after a failed submit when no field is to blame.
 * @param {{ form: Form }} props
 */
export function FormAlert({ form }) {
  const failure = form.failure;
  if (failure === undefined) return html`<div role="alert" class="form-alert empty"></div>`;
  const rest = form.unclaimed();
  const claimed = failure.details.length - rest.length;
  return html`<div role="alert" class="form-alert" tabindex="-1">
    <p>${sentence(failure.message)}${claimed > 0 ? " See the fields marked above." : ""}</p>
    ${
      rest.length > 0
        ? html`<ul>
            ${rest.map((d) => {
              const label = labelOfField(d.field);
              return html`<li>${label.replace(/^\w/, (c) => c.toUpperCase())}: ${inWords(d.message, label)}</li>`;
            })}
          </ul>`
        : null
    }
  </div>`;
}

/**
 * The form element: submits by script only (no native submission), keeps the values on failure.
 * @param {{ form: Form, onSubmit: () => unknown, children: unknown, label?: string, class?: string }} props
 */
export function Form({ form, onSubmit, children, label, class: className }) {
  return html`<form
    ref=${form.formRef}
    class=${`form ${className ?? ""}`}
    novalidate
    aria-label=${label}
    aria-busy=${form.pending ? "true" : undefined}
    onSubmit=${(/** @type {Event} */ e) => {
      e.preventDefault();
      if (!form.pending) onSubmit();
    }}
  >
    ${children}
  </form>`;
}

/**
 * The form's buttons: the submit button says what is happening while it happens.
 * @param {{ form: Form, label: string, pendingLabel?: string, onCancel?: () => void, cancelLabel?: string }} props
 */
export function FormButtons({ form, label, pendingLabel, onCancel, cancelLabel = "Cancel" }) {
  return html`<${FormAlert} form=${form} />
    <div class="buttons">
      <button type="submit" class="primary" aria-disabled=${form.pending ? "true" : undefined}>
        ${form.pending ? (pendingLabel ?? "Saving…") : label}
      </button>
      ${onCancel ? html`<button type="button" onClick=${onCancel} disabled=${form.pending}>${cancelLabel}</button>` : null}
    </div>`;
}
