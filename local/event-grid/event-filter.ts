import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { projectRoot } from "../launch";

/**
 * An Event Grid subscription's filter, in the shape of its ARM `filter` property: the part of it the
 * service uses. Strict: a filter feature the local runtime does not apply is refused, never ignored
 * (Azure would apply it, and the two would disagree).
 */
export const eventFilterSchema = z
  .object({
    includedEventTypes: z.array(z.string().min(1)).min(1),
    subjectBeginsWith: z.string().optional(),
    subjectEndsWith: z.string().optional(),
    isSubjectCaseSensitive: z.boolean().optional(),
    advancedFilters: z
      .array(
        z
          .object({
            operatorType: z.literal("StringIn"),
            key: z.string().min(1),
            values: z.array(z.string()).min(1),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();
export type EventFilter = z.infer<typeof eventFilterSchema>;

/** The part of an Event Grid event (its Event Grid schema) a filter looks at. */
export interface FilteredEvent {
  eventType: string;
  subject: string;
  data: Record<string, unknown>;
}

/** Where the subscription of the file-drop trigger is defined, for `postdeploy` and the local runtime alike. */
export const INBOUND_EVENT_FILTER = join("infra", "hooks", "inbound-event-filter.json");

/** The filter of the `inbound-files` subscription, read from the one file that defines it. */
export function inboundEventFilter(root: string = projectRoot): EventFilter {
  const path = join(root, INBOUND_EVENT_FILTER);
  const parsed = eventFilterSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) throw new Error(`${path}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** The value at a dotted key of the event (`data.api`), as Event Grid's advanced filters read it. */
function valueAt(event: FilteredEvent, key: string): unknown {
  let value: unknown = event;
  for (const part of key.split(".")) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

const same = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * Whether Event Grid delivers `event` to a subscription with this filter: its type is one of the
 * included ones, its subject has the prefix and suffix (case-insensitively unless the filter says
 * otherwise), and every advanced filter holds (string comparisons are case-insensitive, as Event
 * Grid's are; a key the event does not have fails the filter).
 */
export function matchesFilter(filter: EventFilter, event: FilteredEvent): boolean {
  if (!filter.includedEventTypes.some((t) => same(t, event.eventType))) return false;
  const fold = (s: string): string => (filter.isSubjectCaseSensitive === true ? s : s.toLowerCase());
  const subject = fold(event.subject);
  if (filter.subjectBeginsWith !== undefined && !subject.startsWith(fold(filter.subjectBeginsWith))) return false;
  if (filter.subjectEndsWith !== undefined && !subject.endsWith(fold(filter.subjectEndsWith))) return false;
  return filter.advancedFilters.every((f) => {
    const value = valueAt(event, f.key);
    return typeof value === "string" && f.values.some((v) => same(v, value));
  });
}
