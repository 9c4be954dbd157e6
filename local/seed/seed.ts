/**
 * `npm run seed`: the sample dataset, loaded into a running service through its public API as any
 * client would (client credentials, imports, settings), so a newcomer sees valued portfolios, a
 * working export and an ingested feed file within minutes. Running it again changes nothing: imports
 * are upserts by natural key, and portfolios, the export and the feed are looked up before they are
 * created.
 *
 * Which service: IDS_BASE_URL, else the one `npm start` runs on this data folder (it writes
 * `<LOCAL_DATA_DIR>/runtime.json` with where it listens), else http://127.0.0.1:7071. Which client:
 * IDS_CLIENT_ID / IDS_CLIENT_SECRET, else the bootstrap admin of the local settings. IDS_BLOB_ENDPOINT and
 * IDS_SFTP_PORT say where that runtime's Azurite and SFTP drop are when runtime.json is not there (the tests).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { projectRoot } from "../launch";
import { loadLocalSettings } from "../settings";
import { Api } from "./api";
import { seedSettings } from "./seed-settings";
import { PORTFOLIOS } from "./sample-data";
import { sampleRecords } from "./sample-records";

const say = (line: string): void => void process.stdout.write(`${line}\n`);

interface Target {
  baseUrl: string;
  blobEndpoint?: string;
  /** Where the SFTP drop listens, when not where feeds say (a runtime with LOCAL_SFTP_PORT). */
  sftpPort?: number;
  clientId: string;
  clientSecret: string;
}

/** Where the service is and who signs in (see the file's comment). */
export function seedTarget(env: NodeJS.ProcessEnv = process.env): Target {
  const { values } = loadLocalSettings(projectRoot, env);
  const runtimeFile = join(resolve(projectRoot, values.LOCAL_DATA_DIR ?? ".data"), "runtime.json");
  const running = existsSync(runtimeFile)
    ? (JSON.parse(readFileSync(runtimeFile, "utf8")) as { baseUrl?: string; blobEndpoint?: string; sftpPort?: number })
    : {};
  const sftpPort = env.IDS_SFTP_PORT !== undefined ? Number(env.IDS_SFTP_PORT) : running.sftpPort;
  const baseUrl = env.IDS_BASE_URL ?? running.baseUrl ?? `http://127.0.0.1:${values.PORT ?? 7071}`;
  const blobEndpoint = env.IDS_BLOB_ENDPOINT ?? running.blobEndpoint;
  return {
    baseUrl: baseUrl.replace(/\/+$/, ""),
    ...(blobEndpoint === undefined ? {} : { blobEndpoint }),
    ...(sftpPort === undefined ? {} : { sftpPort }),
    clientId: env.IDS_CLIENT_ID ?? values.BOOTSTRAP_CLIENT_ID ?? "local-admin",
    clientSecret: env.IDS_CLIENT_SECRET ?? values.BOOTSTRAP_CLIENT_SECRET ?? "",
  };
}

interface PortfolioItem {
  id: string;
  code: string;
  name: string;
  baseCurrency: string;
  valuationStatus?: string;
}

/** The sample portfolios, created where missing (members before the composite that holds them). */
async function ensurePortfolios(api: Api): Promise<Map<string, PortfolioItem>> {
  const byCode = new Map<string, PortfolioItem>();
  for (const clientId of new Set(PORTFOLIOS.map((p) => p.clientId)))
    for (const p of await api.all<PortfolioItem>(`/api/v1/portfolios?clientId=${encodeURIComponent(clientId)}`))
      byCode.set(p.code, p);
  let created = 0;
  for (const p of [...PORTFOLIOS].sort((a, b) => Number(a.members !== undefined) - Number(b.members !== undefined))) {
    if (byCode.has(p.code)) continue;
    const body = {
      name: p.name,
      code: p.code,
      clientId: p.clientId,
      baseCurrency: p.baseCurrency,
      ...(p.members === undefined
        ? {}
        : { type: "composite", memberIds: p.members.map((code) => byCode.get(code)?.id ?? code) }),
    };
    const { body: answer } = await api.call("POST", "/api/v1/portfolios", body);
    byCode.set(p.code, answer.data as PortfolioItem);
    created += 1;
  }
  say(`  portfolios:   ${PORTFOLIOS.length} (${created} created)`);
  return byCode;
}

/** One data type's records through its import, in calls of at most 10,000 records. */
async function importAll(api: Api, dataType: string, key: string, records: unknown[]): Promise<void> {
  const counts = { created: 0, updated: 0, unchanged: 0 };
  for (let start = 0; start < records.length; start += 10_000) {
    const { body } = await api.call("POST", `/api/v1/import/${dataType}`, {
      [key]: records.slice(start, start + 10_000),
    });
    const summary = (body.data ?? {}) as Partial<Record<keyof typeof counts, number>>;
    for (const name of Object.keys(counts) as (keyof typeof counts)[]) counts[name] += summary[name] ?? 0;
  }
  say(
    `  ${`${dataType}:`.padEnd(13)} ${records.length} (${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged)`,
  );
}

/** Waits until each portfolio's valuation is current (valuation runs off the request path). */
async function waitForValuations(api: Api, portfolios: Map<string, PortfolioItem>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const [code, { id }] of portfolios) {
    for (;;) {
      const { body } = await api.call("GET", `/api/v1/portfolios/${id}`);
      if ((body.data as PortfolioItem).valuationStatus !== "pending") break;
      if (Date.now() > deadline) {
        say(`  ${code}: still valuing; look again in a minute`);
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  for (const [code, { id, baseCurrency }] of portfolios) {
    const { status, body } = await api.call("GET", `/api/v1/portfolios/${id}/holdings`, undefined, [200, 404]);
    const holdings = body.data as { date?: string; totalValue?: number; complete?: boolean } | undefined;
    say(
      status === 200 && holdings !== undefined
        ? `  ${code.padEnd(13)} ${holdings.date ?? ""}  ${holdings.totalValue?.toLocaleString("en", { minimumFractionDigits: 2 })} ${baseCurrency}${holdings.complete === false ? " (incomplete)" : ""}`
        : `  ${code.padEnd(13)} no holdings`,
    );
  }
}

export async function seed(target: Target): Promise<void> {
  say(`Seeding ${target.baseUrl} as ${target.clientId}`);
  const api = await Api.signIn(target.baseUrl, target.clientId, target.clientSecret);
  const records = sampleRecords();
  await importAll(api, "securities", "securities", records.securities);
  const portfolios = await ensurePortfolios(api);
  await importAll(api, "fx-rates", "fxRates", records.fxRates);
  await importAll(api, "prices", "prices", records.prices);
  await importAll(api, "positions", "positions", records.positions);
  await importAll(api, "transactions", "transactions", records.transactions);
  await seedSettings(api, target, say);
  say("Latest valuations:");
  await waitForValuations(api, portfolios, 120_000);
  say(`Done. Open ${target.baseUrl}/console and sign in as ${target.clientId}.`);
}

if (require.main === module) {
  seed(seedTarget()).catch((error: unknown) => {
    process.stderr.write(`seed failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
