// @ts-check
// Replica: the read-only SQL replica for BI tools (Enterprise plan): where to connect, how current it
// is, its logins with their limits (each password shown once), and how to connect Power BI, Excel and
// psql. On another plan the API answers 403: said so here.
import { count, dateTime } from "../lib/format.js";
import { html } from "../lib/html.js";
import { useApi } from "../lib/use-api.js";
import { Details, LoadState, PageHeader, Status, Table } from "../ui/bits.js";
import { ConnectSteps } from "./replica-connect.js";
import { Logins } from "./replica-logins.js";
import { AuditSection } from "./audit.js";

const ENGINES = /** @type {Record<string, string>} */ ({
  sqlserver: "SQL Server (Azure SQL Database)",
  postgres: "PostgreSQL (local runtime)",
});

export function ReplicaPage() {
  const replica = useApi("api/v1/settings/replica");
  const logins = useApi("api/v1/settings/replica/logins", { pageSize: 200 });
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
    <${Logins} replica=${r} logins=${logins} />
    ${logins.body ? html`<${ConnectSteps} replica=${r} logins=${logins.body.data} />` : null}
    <${AuditSection} type="replica-login" />`;
}
