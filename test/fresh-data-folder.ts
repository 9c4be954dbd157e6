import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { projectRoot } from "../local/launch";
import { ensureReachable, findBinaries, initCluster, prepareBinaries, serverAccount } from "../local/replica-postgres";
import { loadLocalSettings } from "../local/settings";

/**
 * What a runtime makes in a new data folder and what costs it most CPU at start, made once per
 * machine and copied into each new data folder a test's runtime starts on: the replica's database
 * cluster (initdb, about 3 s of CPU) and the SFTP drop's RSA host key (about 0.5 s). On a 2-core
 * machine running two test files at once, with ~40 files starting runtimes of their own, that was a
 * large part of the suite's time. The copies are what the runtime would have made (same binaries,
 * admin user, password and options; the same kind of key); it finds them and uses them. Only a
 * data folder with nothing in it yet is seeded: a test that restarts a runtime, or deletes its
 * cluster, sees what the runtime itself does. The shared runtime (global-setup.ts) is not seeded,
 * so every run still makes a cluster and a host key as a first `npm start` does; the replica's own
 * tests (replica-server.test.ts) start its server directly and run initdb.
 */
export async function seedDataFolder(env: Record<string, string>): Promise<void> {
  const settings = loadLocalSettings(projectRoot, { ...process.env, ...env }).values;
  const dataDir = settings.LOCAL_DATA_DIR;
  if (dataDir === undefined || (existsSync(dataDir) && readdirSync(dataDir).length > 0)) return;
  const hostKey = join(dataDir, "sftp", "host_key");
  mkdirSync(dirname(hostKey), { recursive: true });
  copyFileSync(await templateHostKey(), hostKey);
  chmodSync(hostKey, 0o600);
  seedReplicaCluster(settings, dataDir);
}

/** The SFTP host key, made by the runtime's own function the first time it is asked for. */
async function templateHostKey(): Promise<string> {
  const template = join(tmpdir(), "ids-sftp-host-key-template");
  if (existsSync(template)) return template;
  const { loadHostKey } = await import("../local/sftp-server");
  // Made beside it and renamed into place, so that two test workers making it at once never see half of one.
  const making = mkdtempSync(`${template}-making-`);
  try {
    loadHostKey(join(making, "host_key"));
    renameSync(join(making, "host_key"), template);
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

function seedReplicaCluster(settings: Record<string, string>, dataDir: string): void {
  if ((settings.ORGANISATION_PLAN ?? "enterprise") !== "enterprise") return;
  if ((settings.REPLICA_ENGINE ?? "postgres") !== "postgres") return;
  const password = settings.REPLICA_ADMIN_PASSWORD;
  if (password === undefined || password.length < 12) return;
  const user = settings.REPLICA_ADMIN_USER ?? "replica_admin";
  const template = templateCluster(user, password);
  const target = join(dataDir, "replica", "pgdata");
  cpSync(template, target, { recursive: true, preserveTimestamps: true });
  const account = serverAccount();
  if (account !== undefined) chownTree(target, account.uid, account.gid);
}

/** The template cluster for this admin login and these binaries, made the first time it is asked for. */
function templateCluster(user: string, password: string): string {
  const binaries = findBinaries(projectRoot, join(tmpdir(), "ids-replica-template-lib"));
  const initdb = statSync(join(binaries.native, "bin", "initdb"));
  const key = createHash("sha256")
    // initCluster's own text too: a change to the options it gives initdb makes a new template.
    .update(JSON.stringify([binaries.native, initdb.size, initdb.mtimeMs, user, password, initCluster.toString()]))
    .digest("hex")
    .slice(0, 16);
  const template = join(tmpdir(), `ids-replica-template-${key}`);
  if (existsSync(join(template, "PG_VERSION"))) return template;
  prepareBinaries(binaries);
  const account = serverAccount();
  // Made beside it and renamed into place, so that two test workers making it at once never see half of one.
  const making = mkdtempSync(`${template}-making-`);
  try {
    const cluster = join(making, "pgdata");
    ensureReachable(cluster, account);
    initCluster(binaries, cluster, user, password, account);
    try {
      renameSync(cluster, template);
    } catch (error) {
      if (!existsSync(join(template, "PG_VERSION"))) throw error;
    }
  } finally {
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (!statSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), uid, gid);
}
