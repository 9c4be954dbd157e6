// @ts-check
// Test connection, in the export and blob-source forms: the API tries what the form holds (nothing is
// saved) and answers each named step's outcome; an SFTP server's host key can be approved from what
// the test saw (saving then records who approved it and when).
import { api } from "../lib/api.js";
import { html, useState } from "../lib/html.js";
import { Status } from "../ui/bits.js";

/** The steps in people's words. */
const STEP_LABELS = {
  resolve: "Find the server",
  connect: "Connect",
  handshake: "SSH handshake",
  authenticate: "Log in",
  list: "List the container",
  write: "Write and remove a test file",
};

/** A fingerprint as compared: the base64 without `SHA256:` or padding (hex spellings are compared as typed). @param {string} f */
const bare = (f) =>
  f
    .trim()
    .replace(/^SHA256:/i, "")
    .replace(/=+$/, "");

/**
 * @param {{ form: import("../lib/form.js").Form, path: string, body: () => unknown, approvable?: boolean }} props
 *   `body`: what to send, from the form's values now; `approvable`: the form has destination.hostKeyFingerprint
 */
export function ConnectionTest({ form, path, body, approvable = false }) {
  const [state, setState] = useState(/** @type {{ pending: boolean, result?: any }} */ ({ pending: false }));
  const run = async () => {
    setState({ pending: true });
    form.clearFailure();
    try {
      const answer = await api("POST", path, { json: body() });
      setState({ pending: false, result: answer.data });
    } catch (error) {
      // What saving would refuse is shown beside the fields, as Save shows it.
      setState({ pending: false });
      form.fail(error);
    }
  };
  const result = state.result;
  const typed = approvable ? String(form.get("destination.hostKeyFingerprint") ?? "") : "";
  const seen = result?.hostKeyFingerprint;
  const approved = seen !== undefined && typed !== "" && bare(typed) === bare(seen);
  return html`<div class="connection-test">
    <button type="button" onClick=${run} aria-disabled=${state.pending ? "true" : undefined} disabled=${form.pending}>
      ${state.pending ? "Testing…" : "Test connection"}
    </button>
    <div role="status" aria-live="polite">
      ${
        result
          ? html`<p class=${result.ok ? "test-outcome ok" : "test-outcome bad"}>
                ${result.ok ? "Connection test passed: every step worked." : "Connection test failed: see the step marked failed."}
              </p>
              <ol class="test-steps" aria-label="Connection test steps">
                ${result.steps.map(
                  (/** @type {{ name: keyof typeof STEP_LABELS, status: string, detail: string }} */ s) =>
                    html`<li class=${`step ${s.status}`}>
                      <span class="step-name">${STEP_LABELS[s.name] ?? s.name}</span>
                      <${Status} value=${s.status} />
                      <span class="sub">${s.detail}</span>
                    </li>`,
                )}
              </ol>
              ${
                approvable && seen !== undefined
                  ? approved
                    ? html`<p class="hint">Host key <code>${seen}</code> is the approved one.</p>`
                    : html`<div class="host-key">
                        <p>
                          The server presented host key <code>${seen}</code>${result.hostKeyType ? ` (${result.hostKeyType})` : ""}.
                          ${typed === "" ? " No key is approved yet, so any key is accepted." : " It is not the key approved below."}
                          Check it with the server's administrator, then approve it: any other key is then refused. Saving records who approved it and when.
                        </p>
                        <button type="button" onClick=${() => form.set("destination.hostKeyFingerprint", seen)}>Approve this host key</button>
                      </div>`
                  : null
              }`
          : null
      }
    </div>
  </div>`;
}
