import { z } from "zod";
import { dateFormatProblem } from "./feed-values";

export const feedFormats = ["csv", "xlsx", "xml", "json", "fix"] as const;
export const feedFormatSchema = z.enum(feedFormats);
export type FeedFormat = z.infer<typeof feedFormatSchema>;

/** A date format of date-fns tokens for year, month and day (`dd.MM.yyyy`). */
export const dateFormatSchema = z.string().superRefine((f, ctx) => {
  const problem = dateFormatProblem(f);
  if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
});

const recordPath = z
  .string()
  .min(1)
  .max(500)
  .regex(
    /^[^.[\]\s]+(\.[^.[\]\s]+)*$/,
    "must be a dotted path of element or property names, e.g. Document.Report.Position",
  );

/** A feed's parsing options; which apply to which format is checked against the feed's format. */
export const feedOptionsSchema = z
  .strictObject({
    delimiter: z.enum([",", "|", ";", "\t"]).optional().meta({ description: "csv: , | ; or tab (default ,)" }),
    decimalSeparator: z
      .enum([".", ","])
      .optional()
      .meta({ description: "The decimal separator in numbers written as text (default .)" }),
    thousandsSeparator: z
      .enum([",", ".", " ", "'", "\u00a0", "\u202f"])
      .optional()
      .meta({ description: "The separator of thousands in numbers written as text (default none)" }),
    dateFormat: dateFormatSchema.optional().meta({
      description: "How dates are written, e.g. dd.MM.yyyy, yyyyMMdd, MM/dd/yyyy, dd-MMM-yyyy (default ISO yyyy-MM-dd)",
    }),
    encoding: z
      .enum(["utf-8", "windows-1252", "iso-8859-1"])
      .optional()
      .meta({ description: "Text encoding (default utf-8; a BOM is skipped)" }),
    headerRow: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .meta({ description: "csv, xlsx: the 1-based row holding the column headers (default 1)" }),
    sheet: z
      .union([z.string().trim().min(1).max(31), z.number().int().min(1).max(1000)])
      .optional()
      .meta({ description: "xlsx: the sheet's name or 1-based index (default the first)" }),
    recordPath: recordPath.optional().meta({ description: "xml, json: dotted path to the repeating record" }),
    msgTypes: z
      .array(
        z
          .string()
          .min(1)
          .max(10)
          .regex(/^[0-9A-Za-z]+$/, "must be a FIX MsgType (35=) value"),
      )
      .min(1)
      .max(20)
      .optional()
      .meta({ description: "fix: the MsgType (35=) values that are records, e.g. AP, 8" }),
  })
  .meta({ id: "FeedOptions" });
export type FeedOptions = z.infer<typeof feedOptionsSchema>;

/** The formats each option applies to. */
const appliesTo: Record<keyof FeedOptions, readonly FeedFormat[]> = {
  delimiter: ["csv"],
  decimalSeparator: feedFormats,
  thousandsSeparator: feedFormats,
  dateFormat: feedFormats,
  encoding: ["csv", "xml"],
  headerRow: ["csv", "xlsx"],
  sheet: ["xlsx"],
  recordPath: ["xml", "json"],
  msgTypes: ["fix"],
};

/** The problems of `options` for `format`: options that do not apply to it, separators that clash. */
export function optionProblems(options: FeedOptions, format: FeedFormat): { option: string; message: string }[] {
  const problems: { option: string; message: string }[] = [];
  for (const [option, value] of Object.entries(options)) {
    const formats = appliesTo[option as keyof FeedOptions];
    if (value !== undefined && !formats.includes(format)) {
      problems.push({ option, message: `does not apply to ${format} files (only to ${formats.join(", ")})` });
    }
  }
  if (options.thousandsSeparator !== undefined && options.thousandsSeparator === (options.decimalSeparator ?? ".")) {
    problems.push({ option: "thousandsSeparator", message: "must differ from the decimal separator" });
  }
  return problems;
}
