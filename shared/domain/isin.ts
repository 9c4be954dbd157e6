import { z } from "zod";

const ISIN_FORMAT = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;

/** ISO 6166 check digit of an ISIN's first 11 characters: letters become 10..35, then Luhn from the right. */
export function isinCheckDigit(body: string): number {
  const digits = [...body].map((c) => (c >= "A" ? String(c.charCodeAt(0) - 55) : c)).join("");
  let sum = 0;
  // The check digit will sit right of these digits, so the rightmost of them is doubled.
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

/** ISO 6166: two letters, nine alphanumerics and a check digit. */
export function isValidIsin(value: string): boolean {
  return ISIN_FORMAT.test(value) && isinCheckDigit(value.slice(0, 11)) === Number(value[11]);
}

export const isinSchema = z
  .string()
  .superRefine((v, ctx) => {
    // One problem per field: the check digit is only worth checking once the format is right.
    if (!ISIN_FORMAT.test(v))
      ctx.addIssue({ code: "custom", message: "must be an ISIN: 2 letters, 9 letters or digits, 1 check digit" });
    else if (!isValidIsin(v)) ctx.addIssue({ code: "custom", message: "ISIN check digit is wrong" });
  })
  .meta({ description: "ISIN (ISO 6166), check digit verified", example: "US0378331005" });

export const looksLikeIsin = (value: string): boolean => ISIN_FORMAT.test(value);
