import { toPublicClient, type StoredApiClient } from "./api-client";
import type { BlobSource } from "./blob-source";
import { toPublicExport, type StoredExport } from "./export";
import { toPublicFeed, type SftpEndpoint, type StoredFeed } from "./feed";
import { withLimits, type ReplicaLogin } from "./replica/replica-settings";
import type { AuditSubject } from "./settings-audit";
import { toPublicWebhook, type StoredWebhook } from "./webhook";

/**
 * Each settings item in the audit trail, seen through the same view its settings answers use: what an
 * answer never shows (sealed secrets, hashes) is recorded only as redacted.
 */
export const webhookAudit: AuditSubject<StoredWebhook> = {
  type: "webhook",
  name: (w) => w.url,
  publicView: toPublicWebhook,
};

export const exportAudit: AuditSubject<StoredExport> = {
  type: "export",
  name: (e) => e.name,
  publicView: toPublicExport,
};

export const feedAudit = (endpoint: SftpEndpoint): AuditSubject<StoredFeed> => ({
  type: "feed",
  name: (f) => f.name,
  publicView: (f) => toPublicFeed(f, endpoint),
});

/** A blob source holds no secret (access is the service's managed identity): it reads as stored. */
export const blobSourceAudit: AuditSubject<BlobSource> = {
  type: "blob-source",
  name: (b) => b.name,
  publicView: (b) => b,
};

export const apiClientAudit: AuditSubject<StoredApiClient> = {
  type: "api-client",
  name: (c) => c.name,
  publicView: toPublicClient,
};

/**
 * A replica login's password lives only in the database: its rotation is told by the use case. Logins
 * stored before their limits existed show the defaults, as the answers do.
 */
export const replicaLoginAudit: AuditSubject<ReplicaLogin> = {
  type: "replica-login",
  name: (l) => l.name,
  publicView: withLimits,
};
