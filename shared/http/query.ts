import { z } from "zod";

/**
 * A boolean query parameter: `true` or `false` in the query string, published in OpenAPI as a
 * boolean so that generated clients type it as one.
 */
export function booleanQuery(defaultValue: boolean): z.ZodType<boolean, unknown> {
  return z.preprocess(
    (value) => (value === "true" ? true : value === "false" ? false : value),
    z.boolean({ error: "must be true or false" }).default(defaultValue),
  );
}
