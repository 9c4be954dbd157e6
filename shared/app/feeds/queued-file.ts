import { z } from "zod";

/**
 * A message of the `feed-files` queue: one inbound file (`<feedId>/<fileName>`) handed to ingestion
 * explicitly, as a resumed feed hands over the files that waited while it was paused. A storage event
 * cannot do it: announcing a file again (a metadata stamp) raises none in Azure.
 */
export const queuedFileSchema = z.object({ name: z.string().min(3) });
export type QueuedFile = z.infer<typeof queuedFileSchema>;
