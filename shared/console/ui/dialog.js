// @ts-check
// Modal dialogs on the native <dialog> (focus kept inside, Escape closes, the page inert behind it).
// Focus goes to the first field on opening and back to what opened it on closing.
import { html, useId, useLayoutEffect, useRef, useState } from "../lib/html.js";
import { ApiError } from "../lib/api.js";

/** Where focus goes when the element that opened a dialog is gone (deleted with its row). */
export function focusPageHeading() {
  const heading = document.querySelector("main h1");
  if (heading instanceof HTMLElement) heading.focus();
}

/**
 * @param {{ title: string, onClose: () => void, children: unknown, busy?: boolean, wide?: boolean }} props
 */
export function Dialog({ title, onClose, children, busy = false, wide = false }) {
  const ref = useRef(/** @type {HTMLDialogElement | null} */ (null));
  const id = useId();
  // Layout effects: their clean-up runs as the dialog goes (a passive effect's runs after the next
  // paint), so that focus is back on the opener at once, not after a moment on the page's body.
  useLayoutEffect(() => {
    const opener = document.activeElement;
    const dialog = ref.current;
    dialog?.showModal();
    return () => {
      // Closed first: while it is open, everything outside it is inert and cannot take focus.
      if (dialog?.open) dialog.close();
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus();
      else focusPageHeading();
    };
  }, []);
  // Focus on opening, and again when the dialog moves on to its next step (a result, a secret): what
  // the step marks with data-autofocus, or its first field.
  useLayoutEffect(() => {
    const body = ref.current?.querySelector(".dialog-body");
    const first =
      body?.querySelector("[data-autofocus]") ??
      body?.querySelector("input:not([type=hidden]):not([readonly]), select, textarea, button");
    if (first instanceof HTMLElement) first.focus();
  }, [title]);
  return html`<dialog ref=${ref} class=${`dialog ${wide ? "wide" : ""}`} aria-labelledby=${id}
    onCancel=${(/** @type {Event} */ e) => {
      e.preventDefault();
      if (!busy) onClose();
    }}>
    <div class="dialog-head">
      <h2 id=${id}>${title}</h2>
      <button type="button" class="icon" aria-label="Close" onClick=${onClose} disabled=${busy}>×</button>
    </div>
    <div class="dialog-body">${children}</div>
  </dialog>`;
}

/**
 * "Delete X?" with the consequence spelled out; the action runs on confirmation, its failure shown here.
 * @param {{ title: string, message: unknown, confirmLabel: string, onConfirm: () => Promise<unknown>, onClose: () => void, onDone?: () => void }} props
 */
export function ConfirmDialog({ title, message, confirmLabel, onConfirm, onClose, onDone }) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState(/** @type {string | undefined} */ (undefined));
  const confirm = async () => {
    setPending(true);
    setError(undefined);
    try {
      await onConfirm();
      onClose();
      onDone?.();
    } catch (e) {
      setError(e instanceof ApiError || e instanceof Error ? e.message : String(e));
      setPending(false);
    }
  };
  return html`<${Dialog} title=${title} onClose=${onClose} busy=${pending}>
    <div class="confirm">${message}</div>
    <div role="alert" class=${error ? "form-alert" : "form-alert empty"}>${error ? html`<p>${error}</p>` : null}</div>
    <div class="buttons">
      <button type="button" class="danger" onClick=${confirm} aria-disabled=${pending ? "true" : undefined}>${pending ? "Working…" : confirmLabel}</button>
      <button type="button" onClick=${onClose} disabled=${pending}>Cancel</button>
    </div>
  </${Dialog}>`;
}
