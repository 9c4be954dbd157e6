// @ts-check
// One webhook: why it is disabled or failing (a banner), its settings and actions (edit, test, recover
// failed deliveries, rotate the secret, enable or disable, delete) and its deliveries.
import { api } from "../lib/api.js";
import { dateTime } from "../lib/format.js";
import { html, useState } from "../lib/html.js";
import { href, navigate } from "../lib/router.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, Notice, PageHeader, SecretOnce, Status } from "../ui/bits.js";
import { ConfirmDialog, Dialog } from "../ui/dialog.js";
import { attemptOutcome } from "./webhook-attempts.js";
import { WebhookStateBanner } from "./webhook-banner.js";
import { Deliveries } from "./webhook-deliveries.js";
import { WebhookForm } from "./webhook-form.js";
import { RecoverDialog } from "./webhook-recover.js";
import { AuditSection } from "./audit.js";

/** @param {{ id?: string }} props */
export function WebhookDetail({ id = "" }) {
  const path = `api/v1/settings/webhooks/${encodeURIComponent(id)}`;
  const item = useApi(path);
  const [dialog, setDialog] = useState(/** @type {"edit" | "delete" | "rotate" | "recover" | undefined} */ (undefined));
  const [secret, setSecret] = useState(/** @type {string | undefined} */ (undefined));
  const [notice, setNotice] = useState(/** @type {string | undefined} */ (undefined));
  const [testing, setTesting] = useState(false);
  const [testResult, setTestResult] = useState(/** @type {any} */ (undefined));
  const [refresh, setRefresh] = useState(0);
  /** @type {any} */
  const webhook = item.body?.data;
  if (webhook === undefined)
    return html`<${PageHeader} title="Webhook" back=${[href("webhooks"), "All webhooks"]} /><${LoadState} loading=${item.loading} error=${item.error} onRetry=${item.reload} />`;

  const sendTest = async () => {
    setTesting(true);
    setTestResult(undefined);
    try {
      setTestResult((await api("POST", `${path}/test`)).data);
    } catch (error) {
      setTestResult({ error });
    } finally {
      setTesting(false);
      setRefresh((r) => r + 1);
      item.reload();
    }
  };
  const setStatus = async (/** @type {string} */ status) => {
    try {
      await api("PATCH", path, { json: { status } });
      setNotice(
        status === "enabled"
          ? "Webhook enabled: events are delivered again."
          : "Webhook disabled: no deliveries are sent until you enable it.",
      );
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    }
    item.reload();
  };

  return html`<${PageHeader} title=${webhook.url} back=${[href("webhooks"), "All webhooks"]}
      actions=${html`
        <button type="button" onClick=${() => setDialog("edit")}>Edit</button>
        <button type="button" onClick=${sendTest} aria-disabled=${testing ? "true" : undefined}>${testing ? "Sending test event…" : "Send test event"}</button>
        ${webhook.status === "enabled" ? html`<button type="button" onClick=${() => setDialog("recover")}>Recover</button>` : null}
        <button type="button" onClick=${() => setDialog("rotate")}>Rotate secret</button>
        ${
          webhook.status === "enabled"
            ? html`<button type="button" onClick=${() => setStatus("disabled")}>Disable</button>`
            : html`<button type="button" onClick=${() => setStatus("enabled")}>Enable</button>`
        }
        <button type="button" class="danger" onClick=${() => setDialog("delete")}>Delete</button>`} />
    <${WebhookStateBanner} webhook=${webhook} onEnable=${() => setStatus("enabled")} />
    <${Notice} text=${notice} />
    ${testing ? html`<p class="progress" role="status">Sending a signed <code>webhook.test</code> event… the endpoint has 15 s to answer.</p>` : null}
    ${testResult ? html`<${TestOutcome} result=${testResult} />` : null}
    <section class="panel" aria-labelledby="webhook-settings">
      <h2 id="webhook-settings">Settings</h2>
      <${Details} items=${[
        ["Status", html`<${Status} value=${webhook.status} />`],
        ["Events", webhook.events.join(", ")],
        ["Description", webhook.description],
        ...(webhook.status === "disabled"
          ? [["Disabled because", webhook.disabledReason ?? "an administrator disabled it"]]
          : []),
        ...(webhook.failingSince ? [["Failing since", dateTime(webhook.failingSince)]] : []),
        ["Created", dateTime(webhook.createdAt)],
        ["Updated", dateTime(webhook.updatedAt)],
      ]} />
    </section>
    <${Deliveries} webhookPath=${path} refresh=${refresh} webhookEnabled=${webhook.status === "enabled"} />
    ${
      dialog === "edit"
        ? html`<${WebhookForm} webhook=${webhook} onClose=${() => setDialog(undefined)} onSaved=${() => {
            setNotice("Webhook saved.");
            item.reload();
          }} />`
        : null
    }
    ${
      dialog === "recover"
        ? html`<${RecoverDialog} path=${path} onClose=${() => setDialog(undefined)} onStarted=${(
            /** @type {string} */ message,
          ) => {
            setNotice(message);
            setRefresh((r) => r + 1);
          }} />`
        : null
    }
    ${
      dialog === "delete"
        ? html`<${ConfirmDialog} title="Delete webhook" confirmLabel="Delete webhook" onClose=${() => setDialog(undefined)}
          message=${html`<p>Delete the webhook for <span class="mono">${webhook.url}</span>?</p><p>Its pending deliveries stop. This cannot be undone.</p>`}
          onConfirm=${() => api("DELETE", path)} onDone=${() => navigate(href("webhooks"))} />`
        : null
    }
    ${
      dialog === "rotate"
        ? html`<${ConfirmDialog} title="Rotate signing secret" confirmLabel="Rotate secret" onClose=${() => setDialog(undefined)}
          message=${html`<p>Issue a new signing secret? For 24 hours deliveries carry two signatures (old and new), so that your receiver can switch without missing one.</p>`}
          onConfirm=${async () => setSecret((await api("POST", `${path}/rotate-secret`)).data.secret)} />`
        : null
    }
    ${
      secret !== undefined
        ? html`<${Dialog} title="New signing secret" onClose=${() => setSecret(undefined)}>
          <${SecretOnce} label="Signing secret" value=${secret}
            note="Shown once: copy it to your receiver now. The previous secret keeps signing for 24 hours." />
          <div class="buttons"><button type="button" class="primary" onClick=${() => setSecret(undefined)}>Done</button></div>
        </${Dialog}>`
        : null
    }
    <${AuditSection} type="webhook" id=${id} />`;
}

/** What the endpoint did with the test event: the delivery's first attempt. @param {{ result: any }} props */
function TestOutcome({ result }) {
  if (result.error)
    return html`<p class="failure" role="alert">The test event could not be sent: ${result.error.message}</p>`;
  const ok = result.status === "succeeded";
  return html`<p class=${ok ? "success" : "failure"} role=${ok ? "status" : "alert"}>
    Test event ${ok ? "delivered" : result.status === "failed" ? "failed" : "not accepted yet (it will be retried)"}: ${attemptOutcome(result.lastAttempt)}.
  </p>`;
}
