import { adminToken, resultLine, type BenchRuntime } from "./harness";
import { rssOf, sampleRss, uploadGenerated } from "./sftp-upload";

const MB = 1024 * 1024;
const FEEDS = "/api/v1/settings/feeds";

/** A positions feed in `testing`: the trigger reads, maps and validates the whole file, writing nothing. */
const positionsFeed = {
  name: "bench sftp memory",
  provider: "Bench",
  dataType: "positions",
  format: "csv",
  filePattern: "positions-*.csv",
  options: {
    delimiter: ";",
    encoding: "windows-1252",
    decimalSeparator: ",",
    thousandsSeparator: ".",
    dateFormat: "dd.MM.yyyy",
  },
  mapping: { portfolioCode: "Depot", isin: "ISIN", date: "Stichtag", quantity: "Nominal/Stück", currency: "Währung" },
  status: "testing",
};

async function call(
  runtime: BenchRuntime,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{
  status: number;
  body: { data: Record<string, unknown> & { sftp?: { host: string; username: string; password: string } } };
}> {
  const response = await fetch(`${runtime.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "Content-Type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as never };
}

/**
 * Finding 7: a delivered file held whole in memory (300 and 600 MB CSVs over SFTP peaked the runtime at
 * base + file size). A BENCH_SFTP_MB (default 600) MB positions CSV, generated as it is sent, goes over
 * SFTP into a testing feed; the runtime's RSS is sampled until the file's job is done. Target: the
 * growth over the idle runtime stays under 150 MB whatever the file's size.
 */
export async function benchSftpDropMemory(runtime: BenchRuntime): Promise<boolean> {
  const size = Number(process.env.BENCH_SFTP_MB ?? 600) * MB;
  const token = await adminToken(runtime.baseUrl);
  const created = await call(runtime, token, "POST", FEEDS, positionsFeed);
  if (created.status !== 201 || created.body.data.sftp === undefined)
    throw new Error(`feed create failed: ${JSON.stringify(created.body).slice(0, 500)}`);
  const feedId = String(created.body.data.id);
  const { host, username, password } = created.body.data.sftp;
  const login = { host, port: runtime.sftpPort, username, password };

  const jobDone = async (fileName: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const jobs = (await call(runtime, token, "GET", `/api/v1/jobs?feedId=${feedId}&pageSize=100`)).body
        .data as unknown as { fileName: string; status: string }[];
      const job = jobs.find((j) => j.fileName === fileName && j.status !== "running");
      if (job !== undefined) return job;
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  // Warm-up: the code paths loaded before the baseline.
  await uploadGenerated(login, "positions-warm-up.csv", 8 * MB);
  await jobDone("positions-warm-up.csv");
  const baseline = rssOf(runtime.pid);
  const sampler = sampleRss(runtime.pid);
  const started = performance.now();
  const sent = await uploadGenerated(login, "positions-large.csv", size);
  const uploaded = performance.now();
  const job = await jobDone("positions-large.csv");
  const peak = sampler.stop();
  const growth = (peak - baseline) / MB;
  console.log(`\n== SFTP drop memory: a ${Math.round(sent / MB)} MB positions CSV over SFTP into a testing feed ==`);
  console.log(
    `upload ${((uploaded - started) / 1000).toFixed(1)} s, then the job (${String(job.status)}, ${JSON.stringify(job.counts)}) ${((performance.now() - uploaded) / 1000).toFixed(1)} s`,
  );
  console.log(
    `runtime RSS: idle ${Math.round(baseline / MB)} MB, peak ${Math.round(peak / MB)} MB, growth ${growth.toFixed(0)} MB (target < 150 MB)`,
  );
  console.log(resultLine("sftp-drop-memory-growth-mb", growth, Math.round(sent / MB), 150));
  return growth < 150;
}
