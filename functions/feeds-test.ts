import { z } from "zod";
import { services } from "../shared/composition";
import { feedIdParams } from "../shared/domain/feed";
import { DRY_RUN_MAX_BYTES } from "../shared/app/feeds/dry-run-feed";
import { endpoint } from "../shared/http/endpoint";
import { registerEndpoint } from "../shared/http/registry";

const dryRunQuery = z.object({
  fileName: z.string().min(1).max(255).meta({
    description: "The sample's file name, matched against the feed's filePattern",
    example: "positions_20240328.csv",
  }),
});

const rowErrorSchema = z.object({
  row: z
    .number()
    .int()
    .meta({ description: "1-based record number (data rows only); 0 for the header (a mapped column it lacks)" }),
  field: z.string().meta({ description: "The target field" }),
  column: z.string().optional().meta({ description: "The source (column, path or tag) it came from" }),
  message: z.string(),
});

const dryRunSchema = z
  .object({
    received: z.number().int().meta({ description: "Every data record of the file" }),
    valid: z.number().int(),
    rejected: z.number().int(),
    verdict: z.enum(["accepted", "rejected"]).meta({
      description:
        "What ingestion would do with this file under the feed's validation: write its valid rows (accepted), or quarantine it whole, writing nothing (rejected). A file whose header lacks a mapped column, or with no valid row, is rejected whatever onRowError says",
    }),
    reason: z.string().meta({ description: "Why: how many rows would be written, or why the file would be rejected" }),
    errors: z.array(rowErrorSchema).meta({ description: "The first 1,000 row errors" }),
    errorsTruncated: z
      .boolean()
      .meta({ description: "True when the file has more row errors than listed (the counts are complete)" }),
    preview: z.array(z.record(z.string(), z.unknown())).meta({ description: "The first 20 valid mapped records" }),
  })
  .meta({ id: "FeedDryRun" });

export const feedsTest = endpoint({
  name: "feeds-test",
  method: "POST",
  route: "api/v1/settings/feeds/{id}/test",
  summary:
    "Dry run: the first pass of ingestion on a sample file (the raw body, any content type, up to 10 MB): parsed, mapped and validated as the feed would, with the verdict a delivered file would get; nothing is written",
  tag: "System settings",
  scope: "api.admin",
  params: feedIdParams,
  query: dryRunQuery,
  rawBody: "bytes",
  rawBodyDescription: "The sample file, byte for byte (e.g. curl --data-binary @file)",
  maxBodyBytes: DRY_RUN_MAX_BYTES,
  responses: [{ status: 200, description: "What the file would give", schema: z.object({ data: dryRunSchema }) }],
  errors: [404, 413, 422],
  async handle({ params, query, bytes }) {
    return {
      status: 200,
      body: {
        data: await services()
          .feeds.dryRunFeed()
          .execute({ id: params.id, fileName: query.fileName, file: bytes ?? Buffer.alloc(0) }),
      },
    };
  },
});

registerEndpoint(feedsTest);
