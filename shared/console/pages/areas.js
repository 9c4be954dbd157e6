// @ts-check
// The settings areas, in the navigation's order: each a list page and, where it has one, a detail page.
import { ApiClientDetail, ApiClientsPage } from "./api-clients.js";
import { AuditPage } from "./audit.js";
import { BlobSourceDetail } from "./blob-source-detail.js";
import { BlobSourcesPage } from "./blob-sources.js";
import { ExceptionsPage } from "./exceptions.js";
import { ExportDetail } from "./export-detail.js";
import { ExportsPage } from "./exports.js";
import { FeedDetail } from "./feed-detail.js";
import { FeedsPage } from "./feeds.js";
import { JobDetail, JobsPage } from "./jobs.js";
import { ReplicaPage } from "./replica.js";
import { WebhookDetail } from "./webhook-detail.js";
import { WebhooksPage } from "./webhooks.js";

/** @typedef {{ id?: string, query: URLSearchParams }} PageProps */
/** @typedef {{ path: string, label: string, list: (props: PageProps) => unknown, detail?: (props: PageProps) => unknown }} Area */

/** @type {Area[]} */
export const AREAS = [
  { path: "webhooks", label: "Webhooks", list: WebhooksPage, detail: WebhookDetail },
  { path: "exports", label: "Data Exports", list: ExportsPage, detail: ExportDetail },
  { path: "feeds", label: "Feeds", list: FeedsPage, detail: FeedDetail },
  { path: "blob-sources", label: "Blob Sources", list: BlobSourcesPage, detail: BlobSourceDetail },
  { path: "api-clients", label: "API Clients", list: ApiClientsPage, detail: ApiClientDetail },
  { path: "replica", label: "Replica", list: ReplicaPage },
  { path: "jobs", label: "Jobs", list: JobsPage, detail: JobDetail },
  { path: "exceptions", label: "Exceptions", list: ExceptionsPage },
  { path: "audit", label: "Audit log", list: AuditPage },
];
