import type { ReplicaLoginLimits } from "../domain/replica/replica-settings";

/** A session the watchdog stopped: its statement cancelled, or the session ended. */
export interface EndedSession {
  username: string;
  session: number;
  /** statement: ran past its limit; idle-in-transaction: a transaction left open past it; connections: one session too many. */
  reason: "statement" | "idle-in-transaction" | "connections";
}

/** Read-only logins of the replica database itself: the database refuses their writes, DDL and other schemas. */
export interface ReplicaLogins {
  /** Creates a login that can read every table of `analytics` and nothing else, within `limits`. */
  create(username: string, password: string, limits: ReplicaLoginLimits): Promise<void>;
  /** Changes a login's limits; sessions beyond them are stopped by the next `enforceLimits`. */
  setLimits(username: string, limits: ReplicaLoginLimits): Promise<void>;
  /** Replaces the password; the old one stops working and the login's open sessions end. */
  setPassword(username: string, password: string): Promise<void>;
  /** Removes the login and ends its open sessions; it can no longer connect. */
  drop(username: string): Promise<void>;
  /**
   * The watchdog: stops every reader's statement that ran past its login's limit (and a transaction
   * left open idle past it), ends the sessions beyond its connection limit, and puts back any session
   * default or limit the login changed of itself. Returns what it stopped.
   */
  enforceLimits(): Promise<EndedSession[]>;
}
