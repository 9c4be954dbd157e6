import { z } from "zod";

const ISIN_FORMAT = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;

/** ISO 6166: two letters, nine alphanumerics and a Luhn check digit over the letters-as-numbers expansion. */
export function isValidIsin(value: string): boolean {
  if (!ISIN_FORMAT.test(value)) return false;
  const digits = [...value].map((c) => (c >= "A" ? String(c.charCodeAt(0) - 55) : c)).join("");
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export const isinSchema = z
  .string()
  .superRefine((v, ctx) => {
    // One problem per field: the check digit is only worth checking once the format is right.
    if (!ISIN_FORMAT.test(v)) ctx.addIssue({ code: "custom", message: "must be an ISIN: 2 letters, 9 letters or digits, 1 check digit" });
    else if (!isValidIsin(v)) ctx.addIssue({ code: "custom", message: "ISIN check digit is wrong" });
  })
  .meta({ description: "ISIN (ISO 6166), check digit verified", example: "US0378331005" });

export const looksLikeIsin = (value: string): boolean => ISIN_FORMAT.test(value);
