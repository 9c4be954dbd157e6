// @ts-check
// Replica: the read-only SQL replica for BI tools (Enterprise plan): where to connect, how current it
// is, and its logins (each password shown once). On another plan the API answers 403: said so here.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { count, dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, Notice, PageHeader, SecretOnce, Status, Table } from "../ui/bits.js";
import { ConfirmDialog, Dialog } from "../ui/dialog.js";
import { Field, Form, FormButtons } from "../ui/fields.js";
import { AuditSection } from "./audit.js";

const ENGINES = /** @type {Record<string, string>} */ ({
  sqlserver: "SQL Server (Azure SQL Database)",
  postgres: "PostgreSQL (local runtime)",
});

/** What a BI tool is given: server, port, database and the login. @param {any} replica @param {string} username */
function connectionText(replica, username) {
  return replica.engine === "postgres"
    ? `host=${replica.host} port=${replica.port} dbname=${replica.database} user=${username}`
    : `Server=tcp:${replica.host},${replica.port};Database=${replica.database};User ID=${username};Encrypt=True`;
}

/** @param {{ onClose: () => void, onSaved: () => void, replica: any }} props */
function NewLogin({ onClose, onSaved, replica }) {
  const form = useForm({ name: "" });
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
      ]} />
      <${SecretOnce} label="Password" value=${created.password} note="Shown once: copy it now. Rotate the password to get a new one." />
      <div class="buttons"><button type="button" class="primary" onClick=${onClose}>Done</button></div>
    </${Dialog}>`;
  }
  return html`<${Dialog} title="New Login" onClose=${onClose} busy=${form.pending}>
    <${Form} form=${form} onSubmit=${save}>
      <${Field} form=${form} name="name" label="Name" hint="Who uses it, e.g. the finance BI tool." />
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}

export function ReplicaPage() {
  const replica = useApi("api/v1/settings/replica");
  const unavailable = replica.error && (replica.error.status === 403 || replica.error.status === 404);
  const header = html`<${PageHeader} title="Replica"
    intro="A read-only SQL copy of the analytics data for BI tools, kept current from every change the service makes." />`;
  if (unavailable) {
    return html`${header}
      <section class="panel" aria-labelledby="replica-unavailable">
        <h2 id="replica-unavailable">The replica is not available</h2>
        <p>${replica.error?.status === 403 ? replica.error.message : "This deployment has no read-only SQL replica."} It is offered on the Enterprise plan (the deployment's organisation plan).</p>
      </section>`;
  }
  /** @type {any} */
  const r = replica.body?.data;
  if (r === undefined)
    return html`${header}<${LoadState} loading=${replica.loading} error=${replica.error} onRetry=${replica.reload} />`;
  return html`${header}
    <section class="panel" aria-labelledby="replica-connection">
      <h2 id="replica-connection">Connection</h2>
      <${Details} items=${[
        ["Engine", ENGINES[r.engine] ?? r.engine],
        ["Host", html`<span class="mono">${r.host}</span>`],
        ["Port", String(r.port)],
        ["Database", html`<span class="mono">${r.database}</span>`],
        ["Schema", html`<span class="mono">${r.schema}</span>`],
        [
          "Authentication",
          r.authentication
            .map(
              (/** @type {string} */ a) =>
                ({ entra: "Microsoft Entra identity", "sql-login": "SQL login", password: "password" })[a] ?? a,
            )
            .join(", "),
        ],
        ["Status", html`<${Status} value=${r.status} />`],
        ["Lag", r.lagSeconds === null || r.lagSeconds === undefined ? "—" : `${count(r.lagSeconds)} s`],
        ["Last change projected", dateTime(r.lastProjectedAt)],
      ]} />
      <h3 class="sub-heading">Tables</h3>
      <${Table} numeric=${["Rows"]} caption="Tables" head=${["Table", "Rows"]} empty="No tables yet."
        rows=${r.tables.map((/** @type {any} */ t) => html`<tr><td class="mono">${r.schema}.${t.name}</td><td class="num">${count(t.rows)}</td></tr>`)} />
    </section>
    <${Logins} replica=${r} />
    <${AuditSection} type="replica-login" />`;
}

/** @param {{ replica: any }} props */
function Logins({ replica }) {
  const logins = useApi("api/v1/settings/replica/logins", { pageSize: 200 });
  const [dialog, setDialog] = useState(
    /** @type {{ kind: "new" | "rotate" | "delete", login?: any } | undefined} */ (undefined),
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
        ? html`<${Table} caption="Replica logins" head=${["Name", "Username", "Created", ""]} empty="No logins yet. Create one per BI tool or person."
          rows=${list.map(
            (l) => html`<tr>
              <td class="wrap">${l.name}</td>
              <td class="mono">${l.username}</td>
              <td>${dateTime(l.createdAt)}</td>
              <td><div class="buttons">
                <button type="button" class="small" aria-label=${`Rotate password of ${l.name}`} onClick=${() => setDialog({ kind: "rotate", login: l })}>Rotate password</button>
                <button type="button" class="small" aria-label=${`Delete ${l.name}`} onClick=${() => setDialog({ kind: "delete", login: l })}>Delete</button>
              </div></td>
            </tr>`,
          )} />`
        : null
    }
    ${dialog?.kind === "new" ? html`<${NewLogin} replica=${replica} onClose=${close} onSaved=${logins.reload} />` : null}
    ${
      dialog?.kind === "rotate"
        ? html`<${ConfirmDialog} title="Rotate login password" confirmLabel="Issue a new password" onClose=${close}
          message=${html`<p>Issue a new password for <span class="mono">${login.username}</span>? The current one stops working at once.</p>`}
          onConfirm=${async () => setPassword({ login, value: (await api("POST", `${loginPath}/rotate-password`)).data.password })} />`
        : null
    }
    ${
      dialog?.kind === "delete"
        ? html`<${ConfirmDialog} title="Delete login" confirmLabel="Delete login" onClose=${close}
          message=${html`<p>Delete the login <strong>${login.name}</strong> (<span class="mono">${login.username}</span>)? It can no longer connect.</p>`}
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
