import { parseContainerUrl } from "../../domain/blob-source-container-url";
import type { ConnectionTest } from "../../domain/connection-test";
import {
  exportDestinationSchema,
  type ExportDestinationInput,
  type StoredExportDestination,
} from "../../domain/export-destination";
import { parseOrThrow } from "../../domain/validation";
import type { WebhookSecretCipher } from "../../domain/webhook-secret-cipher";
import type { ContainerConnectionProbe, SftpConnectionProbe } from "../../ports/connection-tests";
import type { ExportRepository } from "../../ports/exports";
import type { DestinationRules } from "./destination-rules";
import { checkDestination, requireCredential, requireExport } from "./export-definition";

export interface TestExportDestinationDeps {
  repository: ExportRepository;
  cipher: WebhookSecretCipher;
  destinations: DestinationRules;
  sftp: SftpConnectionProbe;
  containers: ContainerConnectionProbe;
}

/** What a test is asked for: a destination as sent, or an export's stored one with changes laid over it (its secrets kept unless sent). */
export interface TestExportDestinationInput {
  destination?: Record<string, unknown>;
  exportId?: string;
}

type Plain = Record<string, unknown>;

/** The stored destination in the clear (secrets opened for this test only), without what the service adds. */
function opened(cipher: WebhookSecretCipher, exportId: string, d: StoredExportDestination): Plain {
  if (d.type === "blob")
    return { type: "blob", containerUrl: d.containerUrl, ...(d.prefix !== undefined ? { prefix: d.prefix } : {}) };
  const { password, privateKey, hostKeyApprovedBy: _by, hostKeyApprovedAt: _at, ...rest } = d;
  return {
    ...rest,
    ...(password !== undefined ? { password: cipher.open(password, exportId) } : {}),
    ...(privateKey !== undefined ? { privateKey: cipher.open(privateKey, exportId) } : {}),
  };
}

/** `base` with `patch` laid over it, as a PATCH merges a destination: null removes a field; a new secret replaces the other kind. */
function merged(base: Plain, patch: Plain): Plain {
  if (patch["type"] !== undefined && patch["type"] !== base["type"]) return patch;
  const out: Plain = { ...base };
  if (patch["password"] != null || patch["privateKey"] != null) {
    delete out["password"];
    delete out["privateKey"];
  }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (value !== undefined) out[key] = value;
  }
  return out;
}

/** `text` with every secret replaced (a server may echo what it was sent). */
const scrub = (text: string, secrets: readonly string[]): string =>
  secrets.reduce((out, secret) => (secret.length > 0 ? out.split(secret).join("[secret]") : out), text);

/**
 * System Settings › Exports › Test connection: runs the named steps against a destination, through the
 * same checks (a 422 for what saving would refuse), SSRF guard and destination code as a run, and
 * answers each step's outcome and, for SFTP, the host key the server presented. Nothing is saved and
 * nothing is left on the destination.
 */
export class TestExportDestination {
  constructor(private readonly deps: TestExportDestinationDeps) {}

  async execute(input: TestExportDestinationInput): Promise<ConnectionTest> {
    let candidate: Plain = input.destination ?? {};
    if (input.exportId !== undefined) {
      const stored = await requireExport(this.deps.repository, input.exportId);
      candidate = merged(opened(this.deps.cipher, stored.id, stored.destination), candidate);
    }
    const destination: ExportDestinationInput = parseOrThrow(
      exportDestinationSchema,
      candidate,
      "VALIDATION_ERROR",
      "The request body failed validation",
      "destination",
    );
    requireCredential(destination);
    const checked = checkDestination(destination, this.deps.destinations);
    if (checked.type === "blob") {
      const location = parseContainerUrl(checked.containerUrl, this.deps.destinations.storage);
      if ("problem" in location) throw new Error("unreachable: checkDestination accepted the container URL");
      return this.deps.containers.test(location, checked.prefix, { write: true });
    }
    const secrets = [checked.password, checked.privateKey].filter((s): s is string => s !== undefined);
    const result = await this.deps.sftp.test(checked);
    return { ...result, steps: result.steps.map((s) => ({ ...s, detail: scrub(s.detail, secrets) })) };
  }
}
