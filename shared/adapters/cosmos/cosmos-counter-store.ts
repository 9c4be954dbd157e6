import type { Container, PatchRequestBody } from "@azure/cosmos";
import type { CounterStore, WindowCounts } from "../../ports/counter-store";
import { isConflict, isNotFound, isPreconditionFailed } from "./cosmos-errors";
import { AGAIN, CONFLICTS, retry, stillContended } from "./retry";

/** A subject's counters for one UTC day: the day total, and the count of minute `mw` only. */
interface RateDoc {
  id: string;
  key: string;
  kind: "rate";
  d: number;
  mw: number;
  mc: number;
  /** Seconds Cosmos DB keeps the document after its last write (per-item time to live). */
  ttl: number;
}

/**
 * Counters in the `counters` container (partition /key, id = key). A hit is one conditional patch:
 * increment both windows while the stored minute is current, else roll the minute over. Each write
 * restarts the document's time to live, so Cosmos DB deletes a window once it has gone unused.
 */
export class CosmosCounterStore implements CounterStore {
  constructor(private readonly container: Container) {}

  async hitRateWindow(
    subject: string,
    dayKey: string,
    minuteOfDay: number,
    keepSeconds: number,
    hits: number,
  ): Promise<WindowCounts> {
    const key = `rate|${subject}|${dayKey}`;
    const item = this.container.item(key, key);
    const sameMinute: PatchRequestBody = {
      condition: `FROM c WHERE c.mw >= ${minuteOfDay}`,
      operations: [
        { op: "incr", path: "/d", value: hits },
        { op: "incr", path: "/mc", value: hits },
      ],
    };
    // The stored minute is an earlier one: start the new minute unless another request just did.
    const nextMinute: PatchRequestBody = {
      condition: `FROM c WHERE c.mw < ${minuteOfDay}`,
      operations: [
        { op: "incr", path: "/d", value: hits },
        { op: "set", path: "/mw", value: minuteOfDay },
        { op: "set", path: "/mc", value: hits },
      ],
    };
    return retry<WindowCounts>(
      CONFLICTS,
      async () => {
        try {
          const { resource } = await item.patch<RateDoc>(sameMinute);
          if (resource !== undefined) return { day: resource.d, minute: resource.mc };
        } catch (error) {
          if (isNotFound(error)) {
            const doc: RateDoc = { id: key, key, kind: "rate", d: hits, mw: minuteOfDay, mc: hits, ttl: keepSeconds };
            try {
              await this.container.items.create(doc);
              return { day: hits, minute: hits };
            } catch (createError) {
              if (isConflict(createError)) return AGAIN;
              throw createError;
            }
          }
          if (!isPreconditionFailed(error)) throw error;
        }
        try {
          const { resource } = await item.patch<RateDoc>(nextMinute);
          if (resource !== undefined) return { day: resource.d, minute: resource.mc };
        } catch (error) {
          if (!isPreconditionFailed(error)) throw error;
        }
        return AGAIN;
      },
      () => stillContended(`the rate counter ${key}`),
    );
  }
}
