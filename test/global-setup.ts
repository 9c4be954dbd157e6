import type { TestProject } from "vitest/node";
import { launchRuntime } from "../local/launch";
import { runtimeEnv, tempDir, type Runtime } from "./runtime";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    cosmosEndpoint: string;
    storageConnectionString: string;
    /** The port the shared runtime's SFTP drop listens on (feeds show SFTP_PORT, which it does not use). */
    sftpPort: number;
  }
}

let runtime: Runtime | undefined;
let data: ReturnType<typeof tempDir> | undefined;

/** One local runtime (the same one `npm start` runs) on free ports for the integration tests. */
export async function setup(project: TestProject): Promise<void> {
  data = tempDir("ids-test-");
  // Not startRuntime: this one makes its replica cluster and SFTP host key itself, as a first `npm start` does.
  runtime = await launchRuntime(await runtimeEnv(data.path));
  project.provide("baseUrl", runtime.baseUrl);
  project.provide("cosmosEndpoint", runtime.env.COSMOS_ENDPOINT ?? "");
  project.provide("storageConnectionString", runtime.env.STORAGE_CONNECTION_STRING ?? "");
  project.provide("sftpPort", runtime.sftpPort);
}

export async function teardown(): Promise<void> {
  await runtime?.stop();
  data?.remove();
}
