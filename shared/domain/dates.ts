import { z } from "zod";

/** A calendar date YYYY-MM-DD (validated as a real date). */
export const isoDate = z.iso.date({ message: "must be a date YYYY-MM-DD" }).meta({ example: "2024-03-28" });
