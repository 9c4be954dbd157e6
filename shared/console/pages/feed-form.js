// @ts-check
// New Feed / Edit: how a provider's files are recognised (file pattern), read (format and its
// options), mapped (the mapping editor) and validated; created in testing, its SFTP login shown once.
import { api } from "../lib/api.js";
import { useForm } from "../lib/form.js";
import { html, useState } from "../lib/html.js";
import { SecretOnce, Details } from "../ui/bits.js";
import { Dialog } from "../ui/dialog.js";
import { Field, Form, FormButtons } from "../ui/fields.js";
import { MappingEditor } from "./feed-mapping.js";
import { APPLIES, FEED_DATA_TYPES, FEED_FORMATS, FEED_STATUSES, feedBody, initialValues } from "./feed-values.js";

/** @param {{ feed?: any, onClose: () => void, onSaved: (feed: any) => void }} props */
export function FeedForm({ feed, onClose, onSaved }) {
  const editing = feed !== undefined;
  const form = useForm(initialValues(feed));
  const [created, setCreated] = useState(/** @type {any} */ (undefined));
  const v = form.values;
  const shows = (/** @type {string} */ name) => (APPLIES[name] ?? [v.format]).includes(v.format);
  const save = () =>
    form.submit(async (values) => {
      const body = feedBody(values);
      if (editing) {
        const keys = values.sftp.publicKeys
          .split("\n")
          .map((/** @type {string} */ k) => k.trim())
          .filter(Boolean);
        const answer = await api("PATCH", `api/v1/settings/feeds/${encodeURIComponent(feed.id)}`, {
          json: { ...body, sftp: { publicKeys: keys } },
        });
        onSaved(answer.data);
        onClose();
      } else {
        const answer = await api("POST", "api/v1/settings/feeds", { json: body });
        setCreated(answer.data);
        onSaved(answer.data);
      }
    });

  if (created !== undefined) {
    const { sftp } = created;
    return html`<${Dialog} title="Feed created" onClose=${onClose}>
      <p class="success" role="status" tabindex="-1" data-autofocus>The feed <strong>${created.name}</strong> is saved, in ${created.status}. Hand this SFTP login to ${created.provider}: they drop files matching <code>${created.filePattern}</code> into its inbox.</p>
      <${Details} items=${[
        ["Host", sftp.host],
        ["Port", String(sftp.port)],
        ["Username", html`<span class="mono">${sftp.username}</span>`],
      ]} />
      <${SecretOnce} label="SFTP password" value=${sftp.password}
        note="Shown once: copy it now. The service keeps only a hash; Rotate credentials issues a new one." />
      <div class="buttons"><button type="button" class="primary" onClick=${onClose}>Done</button></div>
    </${Dialog}>`;
  }

  return html`<${Dialog} title=${editing ? "Edit feed" : "New Feed"} onClose=${onClose} busy=${form.pending} wide>
    <${Form} form=${form} onSubmit=${save}>
      <div class="grid-3">
        <${Field} form=${form} name="name" label="Name" />
        <${Field} form=${form} name="provider" label="Provider" />
        <${Field} form=${form} name="status" label="Status" options=${FEED_STATUSES} />
        <${Field} form=${form} name="dataType" label="Data type" options=${FEED_DATA_TYPES} />
        <${Field} form=${form} name="format" label="Format" options=${FEED_FORMATS} />
        <${Field} form=${form} name="filePattern" label="File pattern" class="code" placeholder="positions_*.csv" hint="A glob on the file name: * ? [abc] {a,b}." />
      </div>
      <fieldset><legend>Reading the file</legend>
        <div class="grid-3">
          ${
            shows("delimiter")
              ? html`<${Field} form=${form} name="options.delimiter" label="Delimiter" options=${[
                  [",", "Comma ,"],
                  [";", "Semicolon ;"],
                  ["|", "Pipe |"],
                  ["\t", "Tab"],
                ]} />`
              : null
          }
          ${
            shows("encoding")
              ? html`<${Field} form=${form} name="options.encoding" label="Encoding" options=${[
                  ["utf-8", "UTF-8"],
                  ["windows-1252", "Windows-1252"],
                  ["iso-8859-1", "ISO-8859-1"],
                ]} />`
              : null
          }
          ${shows("headerRow") ? html`<${Field} form=${form} name="options.headerRow" label="Header row" inputMode="numeric" hint="1-based; default 1." />` : null}
          ${shows("sheet") ? html`<${Field} form=${form} name="options.sheet" label="Sheet" hint="Name or 1-based number; default the first." />` : null}
          ${shows("recordPath") ? html`<${Field} form=${form} name="options.recordPath" label="Record path" class="code" hint="Dotted path to the repeating record." />` : null}
          ${shows("msgTypes") ? html`<${Field} form=${form} name="options.msgTypes" label="FIX message types" hint="The 35= values that are records, e.g. AP, 8." />` : null}
          <${Field} form=${form} name="options.decimalSeparator" label="Decimal separator" options=${[
            [".", "Dot 1.5"],
            [",", "Comma 1,5"],
          ]} />
          <${Field} form=${form} name="options.thousandsSeparator" label="Thousands separator"
            options=${[
              ["", "None"],
              [",", "Comma 1,000"],
              [".", "Dot 1.000"],
              [" ", "Space 1 000"],
              ["'", "Apostrophe 1'000"],
              ["\u00a0", "No-break space"],
              ["\u202f", "Narrow no-break space"],
            ]} />
          <${Field} form=${form} name="options.dateFormat" label="Date format" class="code" placeholder="yyyy-MM-dd" hint="e.g. dd.MM.yyyy; default ISO." />
        </div>
      </fieldset>
      <${MappingEditor} form=${form} dataType=${v.dataType} format=${v.format} />
      <fieldset><legend>Validation</legend>
        <div class="grid-2">
          <${Field} form=${form} name="validation.onRowError" label="On a row error" options=${[
            ["reject-file", "Reject the whole file"],
            ["skip-row", "Skip the row (and open an exception)"],
          ]} />
          ${v.validation.onRowError === "skip-row" ? html`<${Field} form=${form} name="validation.maxRejectedRows" label="Max rejected rows" inputMode="numeric" hint="Optional: beyond this many, the file is rejected." />` : null}
        </div>
      </fieldset>
      ${editing ? html`<${Field} form=${form} name="sftp.publicKeys" label="SFTP public keys" type="textarea" rows=${3} class="code" hint="Optional: OpenSSH public keys (one per line) that may log in instead of the password." />` : null}
      <${FormButtons} form=${form} label="Save" onCancel=${onClose} />
    </${Form}>
  </${Dialog}>`;
}
