import type { Container } from "@azure/cosmos";
import type { IngestAttempts } from "../../ports/ingest-attempts";
import { isConflict, isNotFound } from "./cosmos-errors";
import { AGAIN, CONFLICTS, retry, stillContended } from "./retry";

/** The unfinished attempts of one file version. */
interface AttemptDoc {
  id: string;
  key: string;
  kind: "ingest-attempt";
  attempts: number;
  firstAt: string;
  lastAt: string;
  /**
   * Seconds Cosmos DB keeps the record after its last write (per-item time to live): a version that
   * never finished and left inbound otherwise is forgotten a week after its last attempt.
   */
  ttl: number;
}

/** How long an unfinished attempt is remembered. */
const KEEP_SECONDS = 7 * 24 * 3600;

/** Ingestion attempts in the `counters` container (partition /key, id = key): one atomic increment per attempt. */
export class CosmosIngestAttempts implements IngestAttempts {
  constructor(private readonly container: Container) {}

  async begin(version: string, now: Date): Promise<number> {
    const key = `ingest-attempt|${version}`;
    const item = this.container.item(key, key);
    return retry<number>(
      CONFLICTS,
      async () => {
        try {
          const { resource } = await item.patch<AttemptDoc>([
            { op: "incr", path: "/attempts", value: 1 },
            { op: "set", path: "/lastAt", value: now.toISOString() },
          ]);
          if (resource !== undefined) return resource.attempts;
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        const doc: AttemptDoc = {
          id: key,
          key,
          kind: "ingest-attempt",
          attempts: 1,
          firstAt: now.toISOString(),
          lastAt: now.toISOString(),
          ttl: KEEP_SECONDS,
        };
        try {
          await this.container.items.create(doc);
          return 1;
        } catch (error) {
          // Another attempt created it first: count on it.
          if (isConflict(error)) return AGAIN;
          throw error;
        }
      },
      () => stillContended(`the ingestion attempt record ${key}`),
    );
  }

  async end(version: string): Promise<void> {
    const key = `ingest-attempt|${version}`;
    try {
      await this.container.item(key, key).delete();
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
}
