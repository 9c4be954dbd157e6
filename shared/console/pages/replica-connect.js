// @ts-check
// Replica › Connect a BI tool: the steps for Power BI, Excel and the command line (psql locally,
// sqlcmd in Azure, whose SQL Server protocol psql does not speak), with this deployment's host, port,
// database and a login's username filled in. Every value is shown as text.
import { html, useId, useState } from "../lib/html.js";

/** What a SQL client is given as its connection string: server, port, database and the login. @param {any} replica @param {string} username */
export function connectionText(replica, username) {
  return replica.engine === "postgres"
    ? `host=${replica.host} port=${replica.port} dbname=${replica.database} user=${username}`
    : `Server=tcp:${replica.host},${replica.port};Database=${replica.database};User ID=${username};Encrypt=True`;
}

/** @param {{ value: string }} props */
const Value = ({ value }) => html`<code>${value}</code>`;

/** @param {any} r @param {string} user */
function postgresSteps(r, user) {
  const server = `${r.host}:${r.port}`;
  return {
    powerBi: [
      html`<strong>Home › Get data › More… › Database › PostgreSQL database</strong>, then <strong>Connect</strong>.`,
      html`Server <${Value} value=${server} />, Database <${Value} value=${r.database} />, Data Connectivity mode <strong>Import</strong>, then <strong>OK</strong>.`,
      html`On the <strong>Database</strong> tab: User name <${Value} value=${user} /> and the login's password; <strong>Connect</strong>. Locally the server has no TLS certificate: accept the unencrypted connection when asked.`,
      html`In the Navigator tick the tables of <${Value} value=${r.schema} /> (or the view <${Value} value="latest_holdings" />) and <strong>Load</strong>: the relationships come from the foreign keys, the descriptions from the catalogue.`,
    ],
    excel: [
      html`<strong>Data › Get Data › From Database › From PostgreSQL Database</strong> (Excel for Windows).`,
      html`Server <${Value} value=${server} />, Database <${Value} value=${r.database} />, then <strong>OK</strong>.`,
      html`<strong>Database</strong> credentials: User name <${Value} value=${user} /> and the password; <strong>Connect</strong>.`,
      html`Pick a table or <${Value} value="latest_holdings" /> in the Navigator and <strong>Load</strong>.`,
    ],
    shell: {
      title: "psql",
      command: `psql "${connectionText(r, user)}"`,
      after: [
        html`Type the password when asked. <${Value} value="\\dt analytics.*" /> lists the tables; <${Value} value="\\d+ analytics.prices" /> shows a table with each column's description.`,
        html`<${Value} value="SELECT * FROM analytics.latest_holdings;" /> and <${Value} value="SELECT * FROM analytics.holdings_as_of('2024-12-31');" /> give each portfolio's holdings, latest or as of a date.`,
      ],
    },
  };
}

/** @param {any} r @param {string} user */
function sqlServerSteps(r, user) {
  const server = r.port === 1433 ? r.host : `${r.host},${r.port}`;
  return {
    powerBi: [
      html`<strong>Home › Get data › Azure › Azure SQL database</strong>, then <strong>Connect</strong>.`,
      html`Server <${Value} value=${server} />, Database <${Value} value=${r.database} />, Data Connectivity mode <strong>Import</strong> (or DirectQuery), then <strong>OK</strong>.`,
      html`<strong>Database</strong>: User name <${Value} value=${user} /> and the login's password, or <strong>Microsoft account</strong> for an Entra identity an administrator added; <strong>Connect</strong>.`,
      html`In the Navigator tick the tables of <${Value} value=${r.schema} />, <${Value} value="latest_holdings" /> or the function <${Value} value="holdings_as_of" />, and <strong>Load</strong>: the relationships come from the foreign keys.`,
    ],
    excel: [
      html`<strong>Data › Get Data › From Azure › From Azure SQL Database</strong>.`,
      html`Server <${Value} value=${server} />, Database <${Value} value=${r.database} />, then <strong>OK</strong>.`,
      html`<strong>Database</strong> credentials: User name <${Value} value=${user} /> and the password (or <strong>Microsoft account</strong>); <strong>Connect</strong>.`,
      html`Pick a table or <${Value} value="latest_holdings" /> in the Navigator and <strong>Load</strong>.`,
    ],
    shell: {
      title: "sqlcmd (psql does not speak Azure SQL's protocol)",
      command: `sqlcmd --server tcp:${r.host},${r.port} --database-name ${r.database} --user-name ${user} --encrypt-connection mandatory`,
      after: [
        html`Type the password when asked; then <${Value} value="SELECT TOP 10 * FROM analytics.latest_holdings;" /> and <${Value} value="GO" />.`,
      ],
    },
  };
}

/** @param {{ replica: any, logins: any[] }} props */
export function ConnectSteps({ replica, logins }) {
  const id = useId();
  const [chosen, setChosen] = useState("");
  const login = logins.find((l) => l.username === chosen) ?? logins[0];
  const user = login?.username ?? "<username>";
  const steps = replica.engine === "postgres" ? postgresSteps(replica, user) : sqlServerSteps(replica, user);
  return html`<section class="panel" aria-labelledby=${`${id}-heading`}>
    <h2 id=${`${id}-heading`}>Connect a BI tool</h2>
    <p>With a login below: its password was shown once when it was made (rotate it to get a new one).</p>
    ${
      logins.length > 1
        ? html`<div class="field">
            <label for=${`${id}-login`}>Login</label>
            <select id=${`${id}-login`} value=${user} onChange=${(/** @type {Event} */ e) => setChosen(/** @type {HTMLSelectElement} */ (e.currentTarget).value)}>
              ${logins.map((l) => html`<option value=${l.username}>${l.name} (${l.username})</option>`)}
            </select>
          </div>`
        : null
    }
    ${logins.length === 0 ? html`<p class="hint">No login yet: create one first; the steps name it then.</p>` : null}
    <h3 class="sub-heading">Power BI Desktop</h3>
    <ol class="steps">${steps.powerBi.map((s) => html`<li>${s}</li>`)}</ol>
    <h3 class="sub-heading">Excel</h3>
    <ol class="steps">${steps.excel.map((s) => html`<li>${s}</li>`)}</ol>
    <h3 class="sub-heading">${steps.shell.title}</h3>
    <pre class="example"><code>${steps.shell.command}</code></pre>
    ${steps.shell.after.map((s) => html`<p>${s}</p>`)}
  </section>`;
}
