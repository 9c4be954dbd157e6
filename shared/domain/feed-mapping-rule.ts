import { z } from "zod";
import { recordFields } from "./feed-fields";
import { dateFormatSchema, type FeedFormat } from "./feed-options";
import { parseSourcePath } from "./feed-source-path";
import type { DataType } from "./import-payload";

const source = z.string().min(1).max(500);

export const mappingRuleSchema = z
  .strictObject({
    source: source.optional().meta({
      description:
        "Column header (csv, xlsx), dotted path in the record (xml, json; @attr for attributes), or FIX tag (e.g. 55, 702[0].704, 453[452=3].448)",
    }),
    value: z
      .union([z.string().max(500), z.number().finite(), z.boolean()])
      .optional()
      .meta({ description: "A constant, used as it is" }),
    format: dateFormatSchema
      .optional()
      .meta({ description: "Date format of this field (overrides options.dateFormat)" }),
    map: z
      .record(z.string().max(200), z.union([z.string().max(500), z.number().finite()]))
      .refine((m) => Object.keys(m).length <= 1000, { message: "at most 1,000 entries" })
      .optional()
      .meta({ description: 'Translates source values, e.g. { "B": "buy" }; a value not listed is a row error' }),
    multiply: z
      .number()
      .finite()
      .refine((n) => n !== 0, { message: "must not be 0" })
      .optional()
      .meta({ description: "Scales a number, e.g. 0.01 for per-cent prices" }),
  })
  .superRefine((r, ctx) => {
    if ((r.source === undefined) === (r.value === undefined)) {
      ctx.addIssue({ code: "custom", message: "exactly one of source and value is required" });
    } else if (r.value !== undefined) {
      for (const key of ["format", "map", "multiply"] as const) {
        if (r[key] !== undefined)
          ctx.addIssue({ code: "custom", path: [key], message: "applies to a source, not to a constant value" });
      }
    }
  })
  .meta({ id: "FeedMappingRule" });
export type MappingRule = z.infer<typeof mappingRuleSchema>;

export const feedMappingSchema = z
  .record(z.string().min(1).max(100), z.union([source, mappingRuleSchema]))
  .refine((m) => Object.keys(m).length >= 1 && Object.keys(m).length <= 100, {
    message: "must map between 1 and 100 target fields",
  })
  .meta({
    id: "FeedMapping",
    description:
      "Target field of the data type's import record → source (or { source | value, format?, map?, multiply? })",
  });
export type FeedMapping = z.infer<typeof feedMappingSchema>;

/** The problems of a mapping for a data type and format: unknown targets, malformed sources, rules that do not fit the target's type. */
export function mappingProblems(
  mapping: FeedMapping,
  dataType: DataType,
  format: FeedFormat,
): { path: string[]; message: string }[] {
  const problems: { path: string[]; message: string }[] = [];
  const fields = recordFields(dataType);
  for (const [target, entry] of Object.entries(mapping)) {
    const kind = fields.get(target);
    if (kind === undefined) {
      problems.push({
        path: [target],
        message: `is not a field of a ${dataType} record (fields: ${[...fields.keys()].join(", ")})`,
      });
      continue;
    }
    const rule = typeof entry === "string" ? { source: entry } : entry;
    if (rule.source !== undefined && format !== "csv" && format !== "xlsx") {
      const path = parseSourcePath(rule.source, format === "fix");
      if (typeof path === "string")
        problems.push({ path: typeof entry === "string" ? [target] : [target, "source"], message: path });
    }
    if ("format" in rule && rule.format !== undefined && kind !== "date")
      problems.push({ path: [target, "format"], message: `${target} is not a date` });
    if ("multiply" in rule && rule.multiply !== undefined && kind !== "number")
      problems.push({ path: [target, "multiply"], message: `${target} is not a number` });
  }
  return problems;
}
