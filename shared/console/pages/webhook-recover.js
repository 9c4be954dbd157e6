// @ts-check
// Recover: every delivery of the webhook that ended failed since a day, sent again one at a time,
// oldest first, each with its own webhook-id. The service says how many; the log shows them go out.
import { api, ApiError } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { count } from "../lib/format.js";
import { html } from "../lib/html.js";
import { Dialog } from "../ui/dialog.js";
import { Field, Form, FormButtons } from "../ui/fields.js";

/** YYYY-MM-DD of a day `daysAgo` before today, in the reader's time zone. @param {number} daysAgo */
function dayBefore(daysAgo) {
  const at = new Date(Date.now() - daysAgo * 86_400_000);
  const pad = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/**
 * @param {{ path: string, onClose: () => void, onStarted: (message: string) => void }} props `path`: the webhook's API path
 */
export function RecoverDialog({ path, onClose, onStarted }) {
  const form = useForm({ since: dayBefore(7) });
  const recover = () =>
    form.submit(async ({ since }) => {
      // The day starts at midnight where the reader is.
      const start = new Date(`${since}T00:00:00`);
      if (since === "" || Number.isNaN(start.getTime()))
        throw new ApiError("client", "Choose the day to recover from", {
          details: [{ field: "since", message: "Enter a day" }],
        });
      const answer = await api("POST", `${path}/recover`, { json: { since: start.toISOString() } });
      const n = answer.data.count;
      onStarted(
        n === 0
          ? `No delivery failed since ${since}: nothing to send again.`
          : `${count(n)} failed ${n === 1 ? "delivery" : "deliveries"} since ${since} ${n === 1 ? "is" : "are"} being sent again, oldest first.`,
      );
      onClose();
    });
  return html`<${Dialog} title="Recover failed deliveries" onClose=${onClose} busy=${form.pending}>
    <${Form} form=${form} onSubmit=${recover}>
      <p>Every delivery of this webhook that ended failed since the day you choose is sent again, one at a time, oldest first, each with its own <code>webhook-id</code> (your endpoint can tell a repeat). A delivery that fails again is retried on the usual schedule.</p>
      <${Field} form=${form} name="since" label="Failed since" type="date" hint="From the start of this day, your time." />
      <${FormButtons} form=${form} label="Send them again" pendingLabel="Starting…" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}
