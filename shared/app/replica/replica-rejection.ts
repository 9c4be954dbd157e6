import type { DataQualityCandidate } from "../../domain/data-quality-exception";
import type { DocumentProjection, ReplicaSource } from "../../domain/replica/projection";

/** Containers whose document ids are unique only within their partition: the entity names both. */
const idWithinPartition = new Set<ReplicaSource>(["prices", "fxRates", "positions"]);

/**
 * Text from a document the replica refused, made storable for the exception that reports it: NUL,
 * unpaired surrogates and noncharacters written as `\uXXXX` (else the exception could not be stored or
 * projected either), and bounded.
 */
export function storable(text: string, max = 300): string {
  const escaped = text.replace(
    /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]|[\uFDD0-\uFDEF\uFFFE\uFFFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return escaped.length > max ? `${escaped.slice(0, max - 1)}…` : escaped;
}

/**
 * The `REPLICA_REJECTED` exception of a document version the replica cannot hold: the document and the
 * engine's (or the projection's) reason. One per version: a redelivered batch opens nothing new.
 */
export function rejectionException(p: DocumentProjection): DataQualityCandidate {
  const { origin } = p;
  const id = storable(idWithinPartition.has(p.source) ? `${origin.partitionKey}|${origin.id}` : origin.id, 200);
  return {
    key: `REPLICA_REJECTED|${p.source}|${origin.docKey}|${p.version?.lsn ?? ""}`,
    type: "REPLICA_REJECTED",
    severity: "error",
    message: `The SQL replica cannot hold ${origin.docType} ${id}: ${storable(p.rejected ?? "refused by the database", 500)}. This version is left out of the replica (it keeps the previous one, if any); a corrected write replaces it.`,
    entity: { type: origin.docType, id },
  };
}
