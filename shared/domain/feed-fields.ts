import type { z } from "zod";
import { recordSchemas, type DataType } from "./import-payload";

/** How a mapped value is turned into a record field: read from the import's own record schema. */
export type FieldKind = "number" | "date" | "text";

/** The target fields of a data type's import record, with their kinds. */
export type RecordFields = ReadonlyMap<string, FieldKind>;

function kindOf(schema: z.core.$ZodType): FieldKind {
  let inner = schema;
  // optional(), default() and nullable() wrap the type that says what the value is.
  for (;;) {
    const def = inner._zod.def;
    if (def.type !== "optional" && def.type !== "default" && def.type !== "nullable") break;
    inner = (def as z.core.$ZodOptionalDef).innerType;
  }
  const def = inner._zod.def;
  if (def.type === "number") return "number";
  if (def.type === "string" && (def as z.core.$ZodStringFormatDef).format === "date") return "date";
  return "text";
}

function fieldsOf(dataType: DataType): RecordFields {
  // The record schemas are objects with refinements; refinements keep the object's shape.
  const shape = (recordSchemas[dataType] as unknown as z.ZodObject).shape;
  return new Map(Object.entries(shape).map(([name, schema]) => [name, kindOf(schema as z.core.$ZodType)]));
}

const cache = new Map<DataType, RecordFields>();

/** The fields a feed of `dataType` may map to, as the import's record schema defines them. */
export function recordFields(dataType: DataType): RecordFields {
  let fields = cache.get(dataType);
  if (fields === undefined) {
    fields = fieldsOf(dataType);
    cache.set(dataType, fields);
  }
  return fields;
}
