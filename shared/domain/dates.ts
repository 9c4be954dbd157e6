import { z } from "zod";
import { MAX_DATE, MIN_DATE } from "./storable";

/** A calendar date YYYY-MM-DD (validated as a real date), from 0001-01-01 to 9999-12-31: what every store holds. */
export const isoDate = z.iso
  .date({ message: "must be a date YYYY-MM-DD" })
  .refine((d) => d >= MIN_DATE, { message: `must be a date from ${MIN_DATE} to ${MAX_DATE}` })
  .meta({ example: "2024-03-28" });
