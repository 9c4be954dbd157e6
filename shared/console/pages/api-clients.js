// @ts-check
// API Clients: who may call the API, with which scopes and tier; the secret shown once (created or
// rotated), disable to stop a client's tokens at once.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href } from "../lib/router.js";
import { sessionState } from "../lib/session.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, Notice, PageHeader, Pager, SecretOnce, Status, Table } from "../ui/bits.js";
import { ConfirmDialog, Dialog } from "../ui/dialog.js";
import { CheckboxGroup, Field, Form, FormButtons } from "../ui/fields.js";

/** @type {[string, string][]} */
const SCOPES = [
  ["api.read", "api.read: every GET"],
  ["api.write", "api.write: imports, portfolio changes, resolving exceptions"],
  ["api.admin", "api.admin: System Settings"],
];
/** @type {[string, string][]} */
const TIERS = [
  ["standard", "Standard (60 requests a minute, 10,000 a day)"],
  ["premium", "Premium (300 a minute, 100,000 a day)"],
];

/** @param {{ client?: any, onClose: () => void, onSaved: () => void }} props */
function ApiClientForm({ client, onClose, onSaved }) {
  const editing = client !== undefined;
  const form = useForm({
    name: client?.name ?? "",
    scopes: client?.scopes ?? ["api.read"],
    tier: client?.tier ?? "standard",
  });
  const [created, setCreated] = useState(/** @type {any} */ (undefined));
  const save = () =>
    form.submit(async (v) => {
      if (editing) {
        await api("PATCH", `api/v1/settings/api-clients/${encodeURIComponent(client.clientId)}`, { json: v });
        onSaved();
        onClose();
        return;
      }
      setCreated((await api("POST", "api/v1/settings/api-clients", { json: v })).data);
      onSaved();
    });
  if (created !== undefined) {
    return html`<${Dialog} title="API client created" onClose=${onClose}>
      <p class="success" role="status" tabindex="-1" data-autofocus>The client <strong>${created.name}</strong> can get tokens now with its id and secret (POST /auth/token, client credentials).</p>
      <${Details} items=${[
        ["Client ID", html`<span class="mono">${created.clientId}</span>`],
        ["Scopes", created.scopes.join(", ")],
        ["Tier", created.tier],
      ]} />
      <${SecretOnce} label="Client secret" value=${created.clientSecret} />
      <div class="buttons"><button type="button" class="primary" onClick=${onClose}>Done</button></div>
    </${Dialog}>`;
  }
  return html`<${Dialog} title=${editing ? "Edit API client" : "New API Client"} onClose=${onClose} busy=${form.pending}>
    <${Form} form=${form} onSubmit=${save}>
      <${Field} form=${form} name="name" label="Name" hint="Who or what uses it, e.g. the BI tool." />
      <${CheckboxGroup} form=${form} name="scopes" legend="Scopes" options=${SCOPES} />
      <${Field} form=${form} name="tier" label="Tier" options=${TIERS} />
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}

export function ApiClientsPage() {
  const [page, setPage] = useState(1);
  const [dialog, setDialog] = useState(
    /** @type {{ kind: "new" | "edit" | "rotate" | "status", client?: any } | undefined} */ (undefined),
  );
  const [secret, setSecret] = useState(/** @type {{ name: string, value: string } | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const list = useApi("api/v1/settings/api-clients", { page, pageSize: 20 });
  const me = sessionState().session?.clientId;
  /** @type {any[]} */
  const clients = list.body?.data ?? [];
  const close = () => setDialog(undefined);
  const target = dialog?.client;
  const clientPath = target ? `api/v1/settings/api-clients/${encodeURIComponent(target.clientId)}` : "";

  return html`<${PageHeader} title="API Clients"
      intro="Each client gets tokens with its id and secret (OAuth 2.0 client credentials). The secret is shown once; the service keeps only a hash."
      actions=${html`<button type="button" class="primary" onClick=${() => setDialog({ kind: "new" })}>New API Client</button>`} />
    <${Notice} text=${notice} />
    <${LoadState} loading=${list.loading} error=${list.error} onRetry=${list.reload} />
    ${
      list.body
        ? html`<${Table} caption="API clients" head=${["Name", "Client ID", "Scopes", "Tier", "Status", "Created", ""]}
          empty="No API clients."
          rows=${clients.map(
            (c) => html`<tr>
              <td class="wrap">${c.name}${c.clientId === me ? html`<span class="sub">you are signed in with it</span>` : null}</td>
              <td class="mono">${c.clientId}</td>
              <td>${c.scopes.map((/** @type {string} */ s) => html`<code class="sub">${s}</code>`)}</td>
              <td>${c.tier}</td>
              <td><${Status} value=${c.status} /></td>
              <td>${dateTime(c.createdAt)}</td>
              <td>
                <div class="buttons">
                  <button type="button" class="small" aria-label=${`Edit ${c.name}`} onClick=${() => setDialog({ kind: "edit", client: c })}>Edit</button>
                  <button type="button" class="small" aria-label=${`Rotate secret of ${c.name}`} onClick=${() => setDialog({ kind: "rotate", client: c })}>Rotate secret</button>
                  <button type="button" class="small" aria-label=${`${c.status === "active" ? "Disable" : "Enable"} ${c.name}`}
                    onClick=${() => setDialog({ kind: "status", client: c })}>${c.status === "active" ? "Disable" : "Enable"}</button>
                </div>
              </td>
            </tr>`,
          )} />
        <${Pager} pagination=${list.body.pagination} onPage=${setPage} label="API clients" />`
        : null
    }
    ${dialog?.kind === "new" || dialog?.kind === "edit" ? html`<${ApiClientForm} client=${target} onClose=${close} onSaved=${list.reload} />` : null}
    ${
      dialog?.kind === "rotate"
        ? html`<${ConfirmDialog} title="Rotate client secret" confirmLabel="Issue a new secret" onClose=${close}
          message=${html`<p>Issue a new secret for <strong>${target.name}</strong>? The current secret stops working at once: whatever uses it must be given the new one.</p>`}
          onConfirm=${async () => setSecret({ name: target.name, value: (await api("POST", `${clientPath}/rotate-secret`)).data.clientSecret })} />`
        : null
    }
    ${
      dialog?.kind === "status"
        ? html`<${ConfirmDialog} title=${target.status === "active" ? "Disable API client" : "Enable API client"}
          confirmLabel=${target.status === "active" ? "Disable client" : "Enable client"} onClose=${close}
          message=${
            target.status === "active"
              ? html`<p>Disable <strong>${target.name}</strong>? It gets no new token and its current tokens stop working.${target.clientId === me ? " You are signed in with it: your session ends." : ""}</p>`
              : html`<p>Enable <strong>${target.name}</strong>? It can get tokens again with its current secret.</p>`
          }
          onConfirm=${() => api("PATCH", clientPath, { json: { status: target.status === "active" ? "disabled" : "active" } })}
          onDone=${() => {
            setNotice(`${target.name} ${target.status === "active" ? "disabled" : "enabled"}.`);
            list.reload();
          }} />`
        : null
    }
    ${
      secret !== undefined
        ? html`<${Dialog} title="New client secret" onClose=${() => setSecret(undefined)}>
          <p>The new secret of <strong>${secret.name}</strong>:</p>
          <${SecretOnce} label="Client secret" value=${secret.value} />
          <div class="buttons"><button type="button" class="primary" onClick=${() => {
            setSecret(undefined);
            list.reload();
          }}>Done</button></div>
        </${Dialog}>`
        : null
    }
    <p class="hint">Clients with <code>api.read</code> can also read the <a href=${href("jobs")}>jobs</a> and <a href=${href("exceptions")}>exceptions</a> shown here.</p>`;
}
