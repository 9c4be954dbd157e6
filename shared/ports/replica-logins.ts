/** Read-only logins of the replica database itself: the database refuses their writes, DDL and other schemas. */
export interface ReplicaLogins {
  /** Creates a login that can read every table of `analytics` and nothing else. */
  create(username: string, password: string): Promise<void>;
  /** Replaces the password; the old one stops working. */
  setPassword(username: string, password: string): Promise<void>;
  /** Removes the login (and its open sessions where the engine allows); it can no longer connect. */
  drop(username: string): Promise<void>;
}
