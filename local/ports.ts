/**
 * The local runtime's ports: each component listens where its setting says (the README's defaults on
 * a fresh clone) and, when another program holds that port, on a free one instead, so `npm start`
 * never fails on a taken port. The settings are rewritten to the ports used before anything reads
 * them, so what the service shows (a feed's SFTP port, the replica's connection details) is true.
 */
import { createServer } from "node:net";
import { freePort } from "./launch";

/** One component's port: the setting it follows and the port that setting asks for (0: any free port). */
export interface WantedPort {
  component: string;
  setting: string;
  port: number;
}

/** The port a component got, and the one it asked for when that was taken. */
export interface ChosenPort extends WantedPort {
  used: number;
  /** The port asked for, when another program held it. */
  taken?: number;
}

/** Whether this process could listen on the port (a test bind: a listener on 0.0.0.0 or :: counts too). */
export function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The ports to use, in order, none used twice. A port asked for is kept when it is free; a taken one
 * (or 0) becomes a free port. Between this check and the component's own listen another program could
 * still take the port; that race is the same as before any check and fails start-up loudly.
 */
export async function choosePorts(wanted: readonly WantedPort[], host = "127.0.0.1"): Promise<ChosenPort[]> {
  const chosen: ChosenPort[] = [];
  const used = new Set<number>();
  for (const want of wanted) {
    let port = want.port;
    const free = port !== 0 && !used.has(port) && (await canListen(port, host));
    if (!free) {
      do port = await freePort();
      while (used.has(port));
    }
    used.add(port);
    chosen.push(free || want.port === 0 ? { ...want, used: port } : { ...want, used: port, taken: want.port });
  }
  return chosen;
}

/** A banner line's note for a component moved off its port, or nothing. */
export function movedNote(port: ChosenPort | undefined): string {
  return port?.taken === undefined ? "" : ` (${port.taken} is taken by another program; ${port.setting} asks for it)`;
}

/** The Azurite connection string with its blob and queue endpoints on these ports (the rest as it was). */
export function storageOnPorts(connectionString: string, ports: { blob: number; queue: number }): string {
  const parts = connectionString.split(";").filter((part) => part.trim() !== "");
  const onPort = (key: "BlobEndpoint" | "QueueEndpoint", port: number): void => {
    const index = parts.findIndex((part) => part.trim().toLowerCase().startsWith(`${key.toLowerCase()}=`));
    const given = index < 0 ? undefined : (parts[index] ?? "").slice((parts[index] ?? "").indexOf("=") + 1);
    const url = new URL(given !== undefined && URL.canParse(given) ? given : "http://127.0.0.1/devstoreaccount1");
    url.port = String(port);
    const part = `${key}=${url.toString()}`;
    if (index < 0) parts.push(part);
    else parts[index] = part;
  };
  onPort("BlobEndpoint", ports.blob);
  onPort("QueueEndpoint", ports.queue);
  return `${parts.join(";")};`;
}
