import type { ReplicaLoginLimits } from "../../domain/replica/replica-settings";

/** What each engine runs for the logins (see SqlReplicaLogins for the order). */
export interface LoginStatements {
  create(username: string, password: string, limits: ReplicaLoginLimits): string[];
  setLimits(username: string, limits: ReplicaLoginLimits): string[];
  setPassword(username: string, password: string): string[];
  /** Run before the login's sessions are ended: no new session may start after it. */
  drop(username: string): string[];
  /** Run after they were ended. */
  afterSessionsEnded(username: string): string[];
  /** The login's open sessions, as rows `{ session }`. */
  sessionsOf(username: string): string;
  /** Ends one session (an id from sessionsOf or enforce). */
  endSession(session: number): string;
  /** The watchdog's statements: the last returns the offending sessions `{ session, username, reason }`. */
  enforce: string[];
  /** Whether `enforce` stops the sessions it returns itself; else each is ended with `endSession`. */
  stopsItself: boolean;
}
