import type { SqlQuerySpec } from "@azure/cosmos";
import { projectedWhere, versionedDocTypes, type ReplicaSource } from "../../domain/replica/projection";
import type { ReplicaSourceStats, SourceStats } from "../../ports/replica-source-stats";
import type { CosmosDatabase } from "./cosmos-client";

/** Counts, per source container, the documents the replica projects (their types' documents), and their newest and oldest `_ts`. */
export class CosmosReplicaSourceStats implements ReplicaSourceStats {
  constructor(private readonly cosmos: CosmosDatabase) {}

  async stats(source: ReplicaSource): Promise<SourceStats> {
    const container = this.cosmos.container(source);
    const types = { name: "@types", value: [...versionedDocTypes[source]] };
    const value = async <T>(query: SqlQuerySpec): Promise<T | undefined> =>
      (await container.items.query<T>(query).fetchAll()).resources[0];
    const extra = projectedWhere[source];
    const where = `WHERE ARRAY_CONTAINS(@types, c.docType)${extra === undefined ? "" : ` AND ${extra}`}`;
    const [documents, newestTs, oldestTs] = await Promise.all([
      value<number>({ query: `SELECT VALUE COUNT(1) FROM c ${where}`, parameters: [types] }),
      value<number>({ query: `SELECT TOP 1 VALUE c._ts FROM c ${where} ORDER BY c._ts DESC`, parameters: [types] }),
      value<number>({ query: `SELECT TOP 1 VALUE c._ts FROM c ${where} ORDER BY c._ts ASC`, parameters: [types] }),
    ]);
    return { documents: documents ?? 0, newestTs: newestTs ?? null, oldestTs: oldestTs ?? null };
  }
}
