import { app, type InvocationContext } from "@azure/functions";
import { services } from "../shared/composition";

/** A file landed in `inbound/<feedId>/<fileName>` (SFTP or a blob upload): ingest it with its feed's definition. */
export async function feedFilesIngest(_blob: unknown, context: InvocationContext): Promise<void> {
  const name = String(context.triggerMetadata?.["name"] ?? "");
  const outcome = await services().ingestFile().run(name);
  context.log(JSON.stringify({ message: "inbound file", name, ...outcome }));
}

app.storageBlob("feed-files-ingest", { path: "inbound/{name}", connection: "AzureWebJobsStorage", handler: feedFilesIngest });
