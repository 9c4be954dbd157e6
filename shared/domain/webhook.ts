import { z } from "zod";
import { eventNames, type EventName } from "./events";
import { idParam } from "./ids";
import { webhookSecretSchema } from "./webhook-secret";

export const webhookStatusSchema = z.enum(["enabled", "disabled"]);
export type WebhookStatus = z.infer<typeof webhookStatusSchema>;

const webhookUrl = z
  .url({ protocol: /^https?$/, error: "must be an absolute https URL" })
  .max(2048)
  .meta({
    description:
      "https URL on a public address (http and private addresses only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)",
  });

const eventList = z
  .array(z.enum(eventNames))
  .min(1)
  .max(eventNames.length)
  .refine((e) => new Set(e).size === e.length, { message: "events must not repeat" });

const description = z.string().trim().max(500);

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(eventNames)),
    description: z.string().nullable(),
    status: webhookStatusSchema,
    disabledReason: z.string().optional().meta({
      description:
        "While disabled by the service: why (a 410 answer, or every delivery failing for WEBHOOK_DISABLE_AFTER_DAYS); cleared by PATCH status enabled",
    }),
    failingSince: z.iso.datetime().optional().meta({
      description:
        "When the first failed attempt since the last delivered one was made: absent while deliveries succeed; the webhook is disabled once every delivery has failed for WEBHOOK_DISABLE_AFTER_DAYS",
    }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "Webhook" });
export type Webhook = z.infer<typeof webhookSchema>;

export const webhookWithSecretSchema = webhookSchema
  .extend({ secret: z.string().meta({ description: "whsec_ signing secret, shown only in this response" }) })
  .meta({ id: "WebhookWithSecret" });

export const webhookCreateSchema = z
  .strictObject({
    url: webhookUrl,
    events: eventList,
    description: description.optional(),
    secret: webhookSecretSchema
      .optional()
      .meta({ description: "Your own signing secret (whsec_ + base64 of 24-64 random bytes); generated when absent" }),
  })
  .meta({ id: "WebhookCreate" });
export type WebhookCreate = z.infer<typeof webhookCreateSchema>;

export const webhookPatchSchema = z
  .strictObject({
    url: webhookUrl.optional(),
    events: eventList.optional(),
    description: description.nullable().optional(),
    status: webhookStatusSchema.optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), { message: "at least one field is required" })
  .meta({ id: "WebhookPatch" });
export type WebhookPatch = z.infer<typeof webhookPatchSchema>;

export const webhookIdParams = z.object({ id: idParam(100) });

/** `POST {id}/recover`: every delivery that ended failed since `since` is sent again. */
export const webhookRecoverSchema = z
  .strictObject({
    since: z.iso
      .datetime({ offset: true })
      .meta({ description: "Deliveries that ended failed at or after this time are sent again (ISO 8601)" }),
  })
  .meta({ id: "WebhookRecover" });

/** A secret as stored: encrypted (see WebhookSecretCipher), never the plain `whsec_` value. */
export type SealedSecret = string;

/** The stored form: the public fields plus the sealed secrets. Never leaves the service. */
export interface StoredWebhook extends Webhook {
  secret: SealedSecret;
  /** The secret before the last rotation, still signing until `until`. */
  previousSecret?: { secret: SealedSecret; until: string };
}

/** How long a rotated-out secret keeps signing, so receivers can switch without missing a delivery. */
export const PREVIOUS_SECRET_HOURS = 24;

export function toPublicWebhook(stored: StoredWebhook): Webhook {
  const { id, url, events, description: d, status, disabledReason, failingSince, createdAt, updatedAt } = stored;
  return {
    id,
    url,
    events,
    description: d,
    status,
    // A reason belongs to a disabled webhook only, whatever a race between a disable and an enable left.
    ...(disabledReason !== undefined && status === "disabled" ? { disabledReason } : {}),
    ...(failingSince !== undefined ? { failingSince } : {}),
    createdAt,
    updatedAt,
  };
}

export const subscribes = (webhook: Pick<Webhook, "events">, event: EventName): boolean =>
  webhook.events.includes(event);
