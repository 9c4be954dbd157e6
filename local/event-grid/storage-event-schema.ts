import { z } from "zod";
import type { StorageEvent } from "./storage-event";

/** A storage event as the blob host reads it off its queue (storage-event.ts describes the fields). */
export const storageEventSchema: z.ZodType<StorageEvent> = z.object({
  id: z.string(),
  topic: z.string(),
  subject: z.string(),
  eventType: z.string(),
  eventTime: z.string(),
  data: z
    .object({
      api: z.string(),
      clientRequestId: z.string().optional(),
      requestId: z.string().optional(),
      eTag: z.string().optional(),
      contentType: z.string().optional(),
      contentLength: z.number().optional(),
      blobType: z.string().optional(),
      url: z.string(),
      sequencer: z.string().optional(),
    })
    .loose(),
  dataVersion: z.string(),
  metadataVersion: z.string(),
});
