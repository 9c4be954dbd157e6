// @ts-check
// Replica › Logins: each BI login with its connection limit and statement time limit (which the
// login itself cannot lift), a new login (password shown once), its limits changed, its password
// rotated (its open sessions end), or deleted.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { count, dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { Details, LoadState, Notice, SecretOnce, Table } from "../ui/bits.js";
import { ConfirmDialog, Dialog } from "../ui/dialog.js";
import { Field, Form, FormButtons } from "../ui/fields.js";
import { connectionText } from "./replica-connect.js";

/** A whole number typed in a box, sent as a number (the API's 422 names a bad one). @param {string} raw */
const whole = (raw) => (/^\s*\d+\s*$/.test(raw) ? Number(raw) : raw);

/** @param {{ form: import("../lib/form.js").Form }} props */
function LimitFields({ form }) {
  return html`<div class="grid-2">
    <${Field} form=${form} name="connectionLimit" label="Connection limit" inputMode="numeric" onValue=${whole}
      hint="Sessions it may have open at once (1–100); one more is refused, so that it cannot take every connection." />
    <${Field} form=${form} name="statementTimeoutSeconds" label="Statement time limit (seconds)" inputMode="numeric" onValue=${whole}
      hint="How long one query may run (1–3600), even if the tool asks for longer." />
  </div>`;
}

/** @param {{ onClose: () => void, onSaved: () => void, replica: any }} props */
function NewLogin({ onClose, onSaved, replica }) {
  const form = useForm({
    name: "",
    connectionLimit: /** @type {number | string} */ (10),
    statementTimeoutSeconds: /** @type {number | string} */ (60),
  });
  const [created, setCreated] = useState(/** @type {any} */ (undefined));
  const save = () =>
    form.submit(async (v) => {
      setCreated((await api("POST", "api/v1/settings/replica/logins", { json: v })).data);
      onSaved();
    });
  if (created !== undefined) {
    return html`<${Dialog} title="Login created" onClose=${onClose}>
      <p class="success" role="status" tabindex="-1" data-autofocus>The login <strong>${created.name}</strong> can read every table of <code>${replica.schema}</code>, and nothing else.</p>
      <${Details} items=${[
        ["Username", html`<span class="mono">${created.username}</span>`],
        ["Connection", html`<code>${connectionText(replica, created.username)}</code>`],
        [
          "Limits",
          `${count(created.connectionLimit)} connections, ${count(created.statementTimeoutSeconds)} s per statement`,
        ],
      ]} />
      <${SecretOnce} label="Password" value=${created.password} note="Shown once: copy it now. Rotate the password to get a new one." />
      <div class="buttons"><button type="button" class="primary" onClick=${onClose}>Done</button></div>
    </${Dialog}>`;
  }
  return html`<${Dialog} title="New Login" onClose=${onClose} busy=${form.pending}>
    <${Form} form=${form} onSubmit=${save}>
      <${Field} form=${form} name="name" label="Name" hint="Who uses it, e.g. the finance BI tool." />
      <${LimitFields} form=${form} />
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}

/** @param {{ login: any, onClose: () => void, onSaved: (login: any) => void }} props */
function EditLimits({ login, onClose, onSaved }) {
  const form = useForm({
    connectionLimit: /** @type {number | string} */ (login.connectionLimit),
    statementTimeoutSeconds: /** @type {number | string} */ (login.statementTimeoutSeconds),
  });
  const path = `api/v1/settings/replica/logins/${encodeURIComponent(login.id)}`;
  const save = () =>
    form.submit(async (v) => {
      const saved = (await api("PATCH", path, { json: v })).data;
      onClose();
      onSaved(saved);
    });
  return html`<${Dialog} title=${`Limits of ${login.name}`} onClose=${onClose} busy=${form.pending}>
    <${Form} form=${form} onSubmit=${save}>
      <p>Sessions of <span class="mono">${login.username}</span> beyond new limits are stopped within seconds.</p>
      <${LimitFields} form=${form} />
      <${FormButtons} form=${form} label="Save limits" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}

/** @param {{ replica: any, logins: ReturnType<typeof import("../lib/use-api.js").useApi> }} props */
export function Logins({ replica, logins }) {
  const [dialog, setDialog] = useState(
    /** @type {{ kind: "new" | "limits" | "rotate" | "delete", login?: any } | undefined} */ (undefined),
  );
  const [password, setPassword] = useState(/** @type {{ login: any, value: string } | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  /** @type {any[]} */
  const list = logins.body?.data ?? [];
  const login = dialog?.login;
  const close = () => setDialog(undefined);
  const loginPath = login ? `api/v1/settings/replica/logins/${encodeURIComponent(login.id)}` : "";
  return html`<section class="panel" aria-labelledby="replica-logins">
    <div class="panel-head">
      <h2 id="replica-logins">Logins</h2>
      <button type="button" class="primary" onClick=${() => setDialog({ kind: "new" })}>New Login</button>
    </div>
    <${Notice} text=${notice} />
    <${LoadState} loading=${logins.loading} error=${logins.error} onRetry=${logins.reload} />
    ${
      logins.body
        ? html`<${Table} caption="Replica logins" numeric=${["Connections", "Statement limit"]}
          head=${["Name", "Username", "Connections", "Statement limit", "Created", ""]} empty="No logins yet. Create one per BI tool or person."
          rows=${list.map(
            (l) => html`<tr>
              <td class="wrap">${l.name}</td>
              <td class="mono">${l.username}</td>
              <td class="num">${count(l.connectionLimit)}</td>
              <td class="num">${count(l.statementTimeoutSeconds)} s</td>
              <td>${dateTime(l.createdAt)}</td>
              <td><div class="buttons">
                <button type="button" class="small" aria-label=${`Change limits of ${l.name}`} onClick=${() => setDialog({ kind: "limits", login: l })}>Limits</button>
                <button type="button" class="small" aria-label=${`Rotate password of ${l.name}`} onClick=${() => setDialog({ kind: "rotate", login: l })}>Rotate password</button>
                <button type="button" class="small" aria-label=${`Delete ${l.name}`} onClick=${() => setDialog({ kind: "delete", login: l })}>Delete</button>
              </div></td>
            </tr>`,
          )} />`
        : null
    }
    ${dialog?.kind === "new" ? html`<${NewLogin} replica=${replica} onClose=${close} onSaved=${logins.reload} />` : null}
    ${
      dialog?.kind === "limits"
        ? html`<${EditLimits} login=${login} onClose=${close} onSaved=${(/** @type {any} */ saved) => {
            setNotice(
              `Limits of ${saved.name} saved: ${count(saved.connectionLimit)} connections, ${count(saved.statementTimeoutSeconds)} s per statement.`,
            );
            logins.reload();
          }} />`
        : null
    }
    ${
      dialog?.kind === "rotate"
        ? html`<${ConfirmDialog} title="Rotate login password" confirmLabel="Issue a new password" onClose=${close}
          message=${html`<p>Issue a new password for <span class="mono">${login.username}</span>? The current one stops working at once and its open sessions end.</p>`}
          onConfirm=${async () => setPassword({ login, value: (await api("POST", `${loginPath}/rotate-password`)).data.password })} />`
        : null
    }
    ${
      dialog?.kind === "delete"
        ? html`<${ConfirmDialog} title="Delete login" confirmLabel="Delete login" onClose=${close}
          message=${html`<p>Delete the login <strong>${login.name}</strong> (<span class="mono">${login.username}</span>)? It can no longer connect and its open sessions end.</p>`}
          onConfirm=${() => api("DELETE", loginPath)} onDone=${() => {
            setNotice(`Login ${login.name} deleted.`);
            logins.reload();
          }} />`
        : null
    }
    ${
      password !== undefined
        ? html`<${Dialog} title="New password" onClose=${() => setPassword(undefined)}>
          <p>The new password of <span class="mono">${password.login.username}</span>:</p>
          <${SecretOnce} label="Password" value=${password.value} note="Shown once: copy it now. The old password no longer works." />
          <div class="buttons"><button type="button" class="primary" onClick=${() => setPassword(undefined)}>Done</button></div>
        </${Dialog}>`
        : null
    }
  </section>`;
}
