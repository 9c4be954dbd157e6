import { Server, type AuthContext, type AuthenticationType, type ClientInfo, type Connection } from "ssh2";
import type { Logger } from "../../shared/logging";
import type { SftpBackend } from "./backend";
import { SftpSubsystem } from "./subsystem";

/** A login attempt with a password or a public key (the only methods offered). */
export type LoginAttempt = Extract<AuthContext, { method: "password" | "publickey" }>;

/** What an attempt got: the login it lets in, or none (throttled: refused without being checked). */
export interface Admission<L> {
  login: L | undefined;
  throttled?: boolean;
}

export interface SftpHostOptions<L> {
  /** The host's private key (PEM or OpenSSH). */
  hostKey: Buffer | string;
  /** Checks one attempt; an attempt that throws is refused. */
  authenticate(attempt: LoginAttempt, client: ClientInfo): Promise<Admission<L>>;
  /** The files a login sees, for each SFTP session it opens. */
  backend(login: L): SftpBackend;
  /** Failed attempts one connection may make before it is closed (default: no limit). */
  maxAuthFailures?: number;
  /** Where failed logins and server errors are logged (default: nowhere). */
  log?: Logger;
}

const METHODS: AuthenticationType[] = ["password", "publickey"];

/**
 * An `ssh2` server offering SFTP only: accepts connections, checks logins through `authenticate`,
 * and serves each SFTP session of a login from its backend (subsystem.ts).
 */
export class SftpHost<L> {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  private accepted = 0;

  constructor(private readonly options: SftpHostOptions<L>) {
    this.server = new Server({ hostKeys: [options.hostKey] }, (client, info) => this.accept(client, info));
  }

  /** TCP connections accepted so far (before any SSH handshake). */
  get connectionsAccepted(): number {
    return this.accepted;
  }

  /** Listens on `host:port` (0: a free port) and answers the port. */
  listen(port: number, host: string): Promise<number> {
    const server = this.server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        server.on("error", (error: Error) => this.options.log?.warn("sftp server error", { error: error.message }));
        const address = server.address();
        resolve(typeof address === "object" && address !== null ? address.port : port);
      });
    });
  }

  /** Ends every connection and stops listening. */
  async stop(): Promise<void> {
    for (const c of this.connections) c.end();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Connection, info: ClientInfo): void {
    this.accepted++;
    this.connections.add(client);
    client.on("close", () => this.connections.delete(client));
    client.on("error", () => undefined); // a dropped connection: its sessions see their channels close
    let login: L | undefined;
    let failures = 0;
    client.on("authentication", (ctx) => {
      if (ctx.method !== "password" && ctx.method !== "publickey") return ctx.reject(METHODS);
      const decide = (admission: Admission<L>): void => {
        if (admission.login !== undefined) {
          login = admission.login;
          return ctx.accept();
        }
        failures++;
        const who = { username: ctx.username.slice(0, 100), address: info.ip };
        this.options.log?.warn("sftp login failed", {
          ...who,
          method: ctx.method,
          ...(admission.throttled === true ? { throttled: true } : {}),
          connectionFailures: failures,
        });
        ctx.reject(METHODS);
        if (failures >= (this.options.maxAuthFailures ?? Infinity)) {
          this.options.log?.warn("sftp connection closed: too many failed logins", {
            ...who,
            connectionFailures: failures,
          });
          client.end();
        }
      };
      void this.options
        .authenticate(ctx, info)
        .catch((): Admission<L> => ({ login: undefined }))
        .then(decide)
        // The client may have gone while its attempt waited: nobody to answer.
        .catch(() => undefined);
    });
    client.on("ready", () => {
      client.on("session", (acceptSession) => {
        acceptSession().on("sftp", (acceptSftp) => {
          if (login !== undefined) new SftpSubsystem(acceptSftp(), this.options.backend(login));
        });
      });
    });
  }
}
