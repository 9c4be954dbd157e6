import type { DataQualityException } from "../../domain/data-quality-exception";
import { AppError } from "../../domain/errors";
import type { DataQualityExceptions } from "./data-quality-exceptions";

/** What a bulk resolve did with each id it was given. */
export interface BulkResolution {
  resolved: DataQualityException[];
  notFound: string[];
  alreadyResolved: string[];
}

/** The most ids one bulk resolve takes. */
export const MAX_BULK_RESOLVE = 500;

/**
 * A person resolves several data-quality exceptions at once, each exactly as a single resolve does
 * (resolvedBy their client id, the one note, an `exception.resolved` event each). An id that does
 * not exist or is resolved already is reported, not an error: the others are still resolved.
 */
export class ResolveDataQualityExceptions {
  constructor(private readonly deps: { dataQuality: Pick<DataQualityExceptions, "resolve"> }) {}

  async execute(ids: readonly string[], by: string, resolution?: string): Promise<BulkResolution> {
    const result: BulkResolution = { resolved: [], notFound: [], alreadyResolved: [] };
    // One at a time, in the given order: each is an optimistic replace of its own document.
    for (const id of new Set(ids)) {
      try {
        result.resolved.push(await this.deps.dataQuality.resolve(id, by, resolution ?? null));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.code === "NOT_FOUND") result.notFound.push(id);
        else if (error.code === "CONFLICT" && !error.retryable) result.alreadyResolved.push(id);
        else throw error;
      }
    }
    return result;
  }
}
