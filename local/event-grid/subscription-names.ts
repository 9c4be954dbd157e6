// Where the local Event Grid keeps its subscriptions and delivers their events (no imports: the front door reads these at start-up).

/**
 * The local Event Grid's subscriptions to the storage account's events, kept in the emulator itself
 * (what `az eventgrid … event-subscription create` makes in Azure): one JSON blob per subscription.
 * Each delivers the events its filter passes to one blob-triggered function: in Azure to the host's
 * blobs webhook, which puts them on the host's blob-trigger queue; locally straight onto that queue.
 * Named like the Functions host's own containers, which no blob source or export may name.
 */
export const SUBSCRIPTIONS_CONTAINER = "azure-webjobs-eventgrid-subscriptions";

/** The subscription of the file-drop trigger, as `postdeploy` names it and the function it delivers to. */
export const INBOUND_SUBSCRIPTION = { name: "inbound-files", function: "feed-files-ingest" } as const;

/**
 * The queue a function's events wait on: the host's blob-trigger queue (one per function here; a
 * storage queue name is 3-63 lower-case letters, digits and single hyphens).
 */
export function deliveryQueueOf(functionName: string): string {
  const tail = functionName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  return `azure-webjobs-blobtrigger-${tail}`.slice(0, 63).replace(/-$/, "");
}
