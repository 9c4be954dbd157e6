import type { Logger } from "../../logging";
import type { EndedSession, ReplicaLogins } from "../../ports/replica-logins";

/**
 * The logins' watchdog (a timer): stops statements past their login's time limit and sessions beyond
 * its connection limit, whatever the session set for itself, the same way on both engines. Each stop
 * is logged with the login and why.
 */
export class EnforceReplicaLoginLimits {
  constructor(private readonly deps: { logins: ReplicaLogins; log: Logger }) {}

  async execute(): Promise<EndedSession[]> {
    const stopped = await this.deps.logins.enforceLimits();
    for (const s of stopped)
      this.deps.log.warn(
        s.reason === "statement"
          ? "replica: a statement ran past its login's time limit and was stopped"
          : s.reason === "connections"
            ? "replica: a session beyond its login's connection limit was ended"
            : "replica: a transaction left open past its login's time limit was ended",
        { username: s.username, session: s.session },
      );
    return stopped;
  }
}
