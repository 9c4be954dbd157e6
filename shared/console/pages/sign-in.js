// @ts-check
// Sign in with an API client that has api.admin: its id and secret are exchanged for a token (the
// secret is not kept). Also shown over the page when the session ends, so nothing typed is lost.
import { html, useEffect, useRef, useState } from "../lib/html.js";
import { SignInError, signIn, signOut } from "../lib/session.js";
import { Dialog } from "../ui/dialog.js";

/** @param {{ clientId?: string }} props */
function SignInForm({ clientId: initialId = "" }) {
  const [clientId, setClientId] = useState(initialId);
  const [secret, setSecret] = useState("");
  const [error, setError] = useState("");
  const [pending, setPending] = useState(false);
  const alertRef = useRef(/** @type {HTMLDivElement | null} */ (null));
  const submit = async (/** @type {Event} */ e) => {
    e.preventDefault();
    if (pending) return;
    setPending(true);
    setError("");
    try {
      await signIn(clientId.trim(), secret);
    } catch (failure) {
      setError(failure instanceof SignInError ? failure.message : "Signing in failed. Try again.");
      setPending(false);
      requestAnimationFrame(() => alertRef.current?.focus());
    }
  };
  return html`<form class="form sign-in-form" novalidate onSubmit=${submit} aria-busy=${pending ? "true" : undefined}>
    <div class="field">
      <label for="client-id">Client ID</label>
      <input
        id="client-id"
        value=${clientId}
        onInput=${(/** @type {Event} */ e) => setClientId(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
        autocomplete="username"
        spellcheck=${false}
        aria-describedby=${error ? "sign-in-error" : undefined}
      />
    </div>
    <div class="field">
      <label for="client-secret">Client secret</label>
      <input
        id="client-secret"
        type="password"
        value=${secret}
        onInput=${(/** @type {Event} */ e) => setSecret(/** @type {HTMLInputElement} */ (e.currentTarget).value)}
        autocomplete="current-password"
        aria-describedby=${error ? "sign-in-error" : undefined}
      />
    </div>
    <div
      role="alert"
      id="sign-in-error"
      ref=${alertRef}
      tabindex="-1"
      class=${error ? "form-alert" : "form-alert empty"}
    >
      ${error ? html`<p>${error}</p>` : null}
    </div>
    <div class="buttons"><button type="submit" class="primary">${pending ? "Signing in…" : "Sign in"}</button></div>
  </form>`;
}

export function SignInPage() {
  useEffect(() => {
    document.title = "Sign in · System Settings";
    document.getElementById("client-id")?.focus();
  }, []);
  return html`<main class="sign-in" id="main">
    <div class="card">
      <div class="brand">
        <img src=${new URL("../icon.svg", import.meta.url).href} alt="" width="36" height="36" />
        <span>Investment Data Service</span>
      </div>
      <h1>System Settings</h1>
      <p class="intro">
        Sign in with an API client that has the <code>api.admin</code> scope. Your token stays in this browser tab until
        you sign out or it expires (an hour).
      </p>
      <${SignInForm} />
    </div>
  </main>`;
}

/** @param {{ clientId: string }} props */
export function SignInAgain({ clientId }) {
  return html`<${Dialog} title="Sign in again" onClose=${() => {}}>
    <p>Your session has ended. Sign in again to carry on: the page and anything you typed stay as they are.</p>
    <${SignInForm} clientId=${clientId} />
    <p class="hint">Or <button type="button" class="link" onClick=${signOut}>sign out</button> and leave what you were doing.</p>
  </${Dialog}>`;
}
