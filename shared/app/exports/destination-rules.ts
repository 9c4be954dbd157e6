import { parseContainerUrl, type ServiceStorage } from "../../domain/blob-source-container-url";
import type { ErrorDetail } from "../../domain/errors";
import { sftpHostProblem } from "../../domain/export-destination";
import type { OutboundHosts } from "../../ports/outbound-hosts";

/** Where an export may write: what the service knows of its own storage, and the SSRF guard's host rules. */
export interface DestinationRules {
  storage: ServiceStorage;
  hosts: OutboundHosts;
}

type Destination = { type: "blob"; containerUrl: string } | { type: "sftp"; host: string };

/**
 * The problems of a destination as 422 details: a container URL that is not a container of an Azure
 * storage account (or of the service's own emulator), or is the service's own storage; an SFTP host
 * the SSRF guard refuses as written. Also answers the container URL normalised. The same check runs
 * again before every attempt, so a definition saved before a rule existed cannot get round it.
 */
export function destinationProblems(
  destination: Destination,
  rules: DestinationRules,
): { details: ErrorDetail[]; containerUrl?: string } {
  if (destination.type === "blob") {
    const location = parseContainerUrl(destination.containerUrl, rules.storage);
    return "problem" in location
      ? { details: [{ field: "destination.containerUrl", message: location.problem }] }
      : { details: [], containerUrl: location.url };
  }
  const refusal = sftpHostProblem(destination.host) ?? rules.hosts.refusal(destination.host);
  return { details: refusal === undefined ? [] : [{ field: "destination.host", message: refusal }] };
}
