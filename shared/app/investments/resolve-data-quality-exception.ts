import type { DataQualityException } from "../../domain/data-quality-exception";
import type { DataQualityExceptions } from "./data-quality-exceptions";

/** A person marks a data-quality exception resolved (once): `resolvedBy` is their API client id. */
export class ResolveDataQualityException {
  constructor(private readonly deps: { dataQuality: Pick<DataQualityExceptions, "resolve"> }) {}

  execute(id: string, by: string, resolution?: string): Promise<DataQualityException> {
    return this.deps.dataQuality.resolve(id, by, resolution ?? null);
  }
}
