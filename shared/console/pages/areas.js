// @ts-check
// The settings areas, in the navigation's order: each a list page and, where it has one, a detail page.
import { html } from "../lib/html.js";
import { PageHeader } from "../ui/bits.js";
import { ExportDetail } from "./export-detail.js";
import { ExportsPage } from "./exports.js";
import { FeedDetail } from "./feed-detail.js";
import { FeedsPage } from "./feeds.js";
import { WebhookDetail } from "./webhook-detail.js";
import { WebhooksPage } from "./webhooks.js";

/** @typedef {{ id?: string, query: URLSearchParams }} PageProps */
/** @typedef {{ path: string, label: string, list: (props: PageProps) => unknown, detail?: (props: PageProps) => unknown }} Area */

/** @param {string} title */
const placeholder = (title) => () => html`<${PageHeader} title=${title} intro="Coming soon." />`;

/** @type {Area[]} */
export const AREAS = [
  { path: "webhooks", label: "Webhooks", list: WebhooksPage, detail: WebhookDetail },
  { path: "exports", label: "Data Exports", list: ExportsPage, detail: ExportDetail },
  { path: "feeds", label: "Feeds", list: FeedsPage, detail: FeedDetail },
  { path: "blob-sources", label: "Blob Sources", list: placeholder("Blob Sources") },
  { path: "api-clients", label: "API Clients", list: placeholder("API Clients") },
  { path: "replica", label: "Replica", list: placeholder("Replica") },
  { path: "jobs", label: "Jobs", list: placeholder("Jobs") },
  { path: "exceptions", label: "Exceptions", list: placeholder("Exceptions") },
];
