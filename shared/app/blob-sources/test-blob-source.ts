import { parseContainerUrl, type ServiceStorage } from "../../domain/blob-source-container-url";
import type { ConnectionTest } from "../../domain/connection-test";
import { AppError } from "../../domain/errors";
import type { ContainerConnectionProbe } from "../../ports/connection-tests";

export interface TestBlobSourceDeps {
  storage: ServiceStorage;
  containers: ContainerConnectionProbe;
}

/**
 * System Settings › Blob sources › Test connection: the container URL checked as saving checks it (a
 * 422 otherwise), then resolved and listed under the prefix with the identity a run uses. Nothing is
 * saved, and nothing is written to the customer's container.
 */
export class TestBlobSource {
  constructor(private readonly deps: TestBlobSourceDeps) {}

  async execute(input: { containerUrl: string; prefix?: string | undefined }): Promise<ConnectionTest> {
    const location = parseContainerUrl(input.containerUrl, this.deps.storage);
    if ("problem" in location)
      throw new AppError("VALIDATION_ERROR", "The request body failed validation", {
        details: [{ field: "containerUrl", message: location.problem }],
      });
    return this.deps.containers.test(location, input.prefix, { write: false });
  }
}
