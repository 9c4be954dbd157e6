/**
 * The settings part of the sample: a daily holdings export to the local Azurite's `customer-exports`
 * container (run once now), and the broker's trades feed of examples/feeds/ with its example file
 * dropped over SFTP, as a provider would. Each is looked up by name first, so a second run adds none.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import SftpClient from "ssh2-sftp-client";
import { projectRoot } from "../launch";
import type { Api } from "./api";

export const SAMPLE_EXPORT = "Sample: daily holdings";
export const SAMPLE_FEED_EXAMPLE = "transactions-csv";
/** The local Azurite container the sample export (and docs/exports.md's local example) writes to. */
export const CUSTOMER_EXPORTS_CONTAINER = "customer-exports";

interface Named {
  id: string;
  name: string;
}

async function ensureExport(api: Api, blobEndpoint: string, say: (line: string) => void): Promise<void> {
  const existing = (await api.all<Named>("/api/v1/settings/exports")).find((e) => e.name === SAMPLE_EXPORT);
  if (existing !== undefined) {
    say(`  export:       "${SAMPLE_EXPORT}" (${existing.id}, already there)`);
    return;
  }
  const { body } = await api.call("POST", "/api/v1/settings/exports", {
    name: SAMPLE_EXPORT,
    dataType: "holdings",
    format: "csv",
    schedule: { frequency: "daily", time: "06:30", timezone: "Europe/London" },
    destination: {
      type: "blob",
      containerUrl: `${blobEndpoint.replace(/\/+$/, "")}/${CUSTOMER_EXPORTS_CONTAINER}`,
      prefix: "holdings/",
    },
    fileName: "holdings_{date:yyyyMMdd}.csv",
  });
  const { id } = body.data as Named;
  await api.call("POST", `/api/v1/settings/exports/${id}/run`);
  say(`  export:       "${SAMPLE_EXPORT}" (${id}, created and run now into ${CUSTOMER_EXPORTS_CONTAINER})`);
}

interface Example {
  id: string;
  file: string;
  feed: { name: string; filePattern: string };
}

interface FeedAnswer extends Named {
  sftp: { host: string; port: number; username: string; password?: string };
}

async function ensureFeed(api: Api, sftpPort: number | undefined, say: (line: string) => void): Promise<void> {
  const examples = JSON.parse(readFileSync(join(projectRoot, "examples", "feeds", "feeds.json"), "utf8")) as Example[];
  const example = examples.find((e) => e.id === SAMPLE_FEED_EXAMPLE);
  if (example === undefined) throw new Error(`examples/feeds/feeds.json has no ${SAMPLE_FEED_EXAMPLE}`);
  let feed = (await api.all<FeedAnswer>("/api/v1/settings/feeds")).find((f) => f.name === example.feed.name);
  if (feed !== undefined && (await api.all<unknown>(`/api/v1/jobs?feedId=${feed.id}`)).length > 0) {
    say(`  feed:         "${feed.name}" (${feed.id}, its file already delivered)`);
    return;
  }
  // A new feed shows its password once; one left without a file by an interrupted run gets a new one.
  feed =
    feed === undefined
      ? ((await api.call("POST", "/api/v1/settings/feeds", { ...example.feed, status: "live" })).body
          .data as FeedAnswer)
      : ((await api.call("POST", `/api/v1/settings/feeds/${feed.id}/rotate-credentials`)).body.data as FeedAnswer);
  const sftp = new SftpClient();
  const port = sftpPort ?? feed.sftp.port;
  await sftp.connect({
    host: feed.sftp.host,
    port,
    username: feed.sftp.username,
    ...(feed.sftp.password === undefined ? {} : { password: feed.sftp.password }),
    retries: 0,
    readyTimeout: 20_000,
  });
  const name = example.file.split("/").pop() ?? example.file;
  try {
    await sftp.put(readFileSync(join(projectRoot, "examples", "feeds", example.file)), `/${name}`);
  } finally {
    await sftp.end();
  }
  say(`  feed:         "${feed.name}" (${feed.id}, ${name} dropped on sftp://${feed.sftp.host}:${port})`);
}

export async function seedSettings(
  api: Api,
  { blobEndpoint, sftpPort }: { blobEndpoint?: string; sftpPort?: number },
  say: (line: string) => void,
): Promise<void> {
  if (blobEndpoint === undefined)
    say("  export:       skipped (the local runtime's blob endpoint is unknown: set IDS_BLOB_ENDPOINT)");
  else await ensureExport(api, blobEndpoint, say);
  await ensureFeed(api, sftpPort, say);
}
