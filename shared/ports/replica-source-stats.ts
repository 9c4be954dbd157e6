import type { ReplicaSource } from "../domain/replica/projection";

/** Per source container, what is stored that the replica projects (its versioned document types). */
export interface SourceStats {
  documents: number;
  /** The newest `_ts` among them (null when there are none). */
  newestTs: number | null;
  /** The oldest `_ts` among them (null when there are none). */
  oldestTs: number | null;
}

/** The stored side of the replica's progress: counted where the documents live (Cosmos DB). */
export interface ReplicaSourceStats {
  stats(source: ReplicaSource): Promise<SourceStats>;
}
