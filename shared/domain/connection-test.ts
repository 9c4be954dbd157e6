import { z } from "zod";

/** The steps a connection test runs, in order: SFTP resolve → connect → handshake → authenticate → write; blob resolve → list (→ write for an export). */
export const connectionStepNames = ["resolve", "connect", "handshake", "authenticate", "list", "write"] as const;
export type ConnectionStepName = (typeof connectionStepNames)[number];

export const connectionStepSchema = z
  .object({
    name: z.enum(connectionStepNames),
    status: z.enum(["passed", "failed", "skipped"]).meta({ description: "skipped: an earlier step failed" }),
    detail: z.string().meta({ description: "What the step saw or why it failed, in words to act on; never a secret" }),
  })
  .meta({ id: "ConnectionTestStep" });
export type ConnectionStep = z.infer<typeof connectionStepSchema>;

export const connectionTestSchema = z
  .object({
    ok: z.boolean().meta({ description: "Every step passed" }),
    steps: z.array(connectionStepSchema),
    hostKeyFingerprint: z.string().optional().meta({
      description:
        "SFTP: the SHA-256 fingerprint of the host key the server presented (SHA256:… as ssh-keygen -l prints it), to approve by saving it as the destination's hostKeyFingerprint",
    }),
    hostKeyType: z.string().optional().meta({ description: "SFTP: the host key's algorithm, e.g. ssh-ed25519" }),
  })
  .meta({ id: "ConnectionTest" });
export type ConnectionTest = z.infer<typeof connectionTestSchema>;

/** Builds a test's answer step by step: once a step fails, the ones named after it are skipped. */
export class ConnectionSteps {
  private readonly steps: ConnectionStep[] = [];

  constructor(private readonly names: readonly ConnectionStepName[]) {}

  passed(name: ConnectionStepName, detail: string): void {
    this.steps.push({ name, status: "passed", detail });
  }

  failed(name: ConnectionStepName, detail: string): void {
    this.steps.push({ name, status: "failed", detail });
  }

  get ok(): boolean {
    return this.steps.length === this.names.length && this.steps.every((s) => s.status === "passed");
  }

  /** The answer: every step named, those not reached skipped. */
  result(extra: Pick<ConnectionTest, "hostKeyFingerprint" | "hostKeyType"> = {}): ConnectionTest {
    const reached = new Set(this.steps.map((s) => s.name));
    const failedAt = this.steps.find((s) => s.status === "failed")?.name;
    const steps = [
      ...this.steps,
      ...this.names
        .filter((n) => !reached.has(n))
        .map((name) => ({
          name,
          status: "skipped" as const,
          detail: failedAt === undefined ? "not run" : `not run: ${failedAt} failed`,
        })),
    ];
    return { ok: this.ok, steps, ...extra };
  }
}

/**
 * `POST /settings/exports/test-destination`: a destination as it would be saved, or `exportId` to test
 * an existing export's stored destination (its secrets) with `destination`'s fields laid over it as a
 * PATCH would. The destination's fields are checked by the use case, as saving checks them.
 */
export const testExportDestinationRequestSchema = z
  .strictObject({
    exportId: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: "An existing export: its stored destination (and secrets) are tested" }),
    destination: z.record(z.string(), z.unknown()).optional().meta({
      description:
        "The destination as sent when saving an export (ExportDestinationInput); with exportId, the changes to its stored destination (ExportDestinationPatch)",
    }),
  })
  .refine((b) => b.exportId !== undefined || b.destination !== undefined, {
    message: "give a destination, or the exportId of an export whose destination to test",
    path: ["destination"],
  })
  .meta({ id: "TestExportDestinationRequest" });
export type TestExportDestinationRequest = z.infer<typeof testExportDestinationRequestSchema>;

/** `POST /settings/blob-sources/test`: the container URL and prefix a blob source would read. */
export const testBlobSourceRequestSchema = z
  .strictObject({
    containerUrl: z.string().trim().min(1).max(2048).meta({
      description: "https://ACCOUNT.blob.core.windows.net/CONTAINER (as a blob source takes it)",
      example: "https://custodianexports.blob.core.windows.net/positions",
    }),
    prefix: z
      .string()
      .max(1024)
      .refine((p) => !/[\u0000-\u001f\u007f]/.test(p), { message: "must not contain control characters" })
      .optional(),
  })
  .meta({ id: "TestBlobSourceRequest" });
