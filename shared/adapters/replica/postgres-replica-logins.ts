/**
 * Logins on the local PostgreSQL server: roles that can log in, members of the reader role. PostgreSQL
 * enforces a role's CONNECTION LIMIT itself (a login cannot change it), and its statement_timeout as
 * a session default, which any session may lift (`SET statement_timeout = 0`, `ALTER ROLE self SET …`):
 * the watchdog (`enforce`, run by a timer as the app's superuser) stops what runs past the limit
 * anyway and puts the defaults back.
 */
import { defaultLimits, type ReplicaLoginLimits } from "../../domain/replica/replica-settings";
import type { LoginStatements } from "./login-statements";
import { READER_ROLE } from "./replica-schema";

const members = `SELECT r.oid, r.rolname AS username, r.rolconnlimit,
    COALESCE(l.connection_limit, ${defaultLimits.connectionLimit}) AS connection_limit,
    COALESCE(l.statement_timeout_seconds, ${defaultLimits.statementTimeoutSeconds}) AS seconds
  FROM pg_roles r
  JOIN pg_auth_members m ON m.member = r.oid
  JOIN pg_roles g ON g.oid = m.roleid AND g.rolname = '${READER_ROLE}'
  LEFT JOIN replica.logins l ON l.username = r.rolname`;

/**
 * Each reader's CONNECTION LIMIT and session defaults as its limits say (replica.logins, else the
 * defaults): put back whenever they differ, e.g. after the login ran `ALTER ROLE self SET
 * statement_timeout = 0` (every role may set its own defaults) or after its limits changed.
 */
const reconcile = `DO $$
DECLARE reader record; other record;
BEGIN
  FOR reader IN
    SELECT * FROM (${members}) x
    WHERE x.rolconnlimit <> x.connection_limit
      OR EXISTS (SELECT 1 FROM pg_db_role_setting s WHERE s.setrole = x.oid AND s.setdatabase <> 0)
      OR (SELECT array(SELECT c FROM unnest(s.setconfig) c ORDER BY c) FROM pg_db_role_setting s WHERE s.setrole = x.oid AND s.setdatabase = 0)
        IS DISTINCT FROM ARRAY['idle_in_transaction_session_timeout=' || x.seconds || 's', 'statement_timeout=' || x.seconds || 's']
  LOOP
    EXECUTE format('ALTER ROLE %I CONNECTION LIMIT %s', reader.username, reader.connection_limit);
    EXECUTE format('ALTER ROLE %I RESET ALL', reader.username);
    FOR other IN SELECT db.datname FROM pg_db_role_setting s JOIN pg_database db ON db.oid = s.setdatabase WHERE s.setrole = reader.oid LOOP
      EXECUTE format('ALTER ROLE %I IN DATABASE %I RESET ALL', reader.username, other.datname);
    END LOOP;
    EXECUTE format('ALTER ROLE %I SET statement_timeout = %L', reader.username, reader.seconds || 's');
    EXECUTE format('ALTER ROLE %I SET idle_in_transaction_session_timeout = %L', reader.username, reader.seconds || 's');
  END LOOP;
END $$`;

/**
 * One statement finds and stops what breaks a limit (no gap in which a statement ends and a new one is
 * cancelled instead): a statement past it is cancelled (the session stays), a transaction left open
 * idle past it and a session beyond the connection limit (the newest go) are ended.
 */
const enforce = `WITH sessions AS (
  SELECT a.pid, a.usename, a.state, a.query_start, a.state_change, x.connection_limit, x.seconds,
    row_number() OVER (PARTITION BY a.usename ORDER BY a.backend_start, a.pid) AS n
  FROM pg_stat_activity a JOIN (${members}) x ON x.username = a.usename
  WHERE a.backend_type = 'client backend' AND a.pid <> pg_backend_pid()
), offending AS (
  SELECT pid, usename, CASE
    WHEN n > connection_limit THEN 'connections'
    WHEN state IN ('active', 'fastpath function call') AND query_start < clock_timestamp() - make_interval(secs => seconds) THEN 'statement'
    WHEN state LIKE 'idle in transaction%' AND state_change < clock_timestamp() - make_interval(secs => seconds) THEN 'idle-in-transaction'
  END AS reason
  FROM sessions
)
SELECT pid AS session, usename AS username, reason,
  CASE WHEN reason = 'statement' THEN pg_cancel_backend(pid) ELSE pg_terminate_backend(pid) END AS stopped
FROM offending WHERE reason IS NOT NULL`;

const row = (username: string, limits: ReplicaLoginLimits): string[] => [
  `DELETE FROM replica.logins WHERE username = '${username}'`,
  `INSERT INTO replica.logins (username, connection_limit, statement_timeout_seconds) VALUES ('${username}', ${limits.connectionLimit}, ${limits.statementTimeoutSeconds})`,
];

export const postgresLoginStatements: LoginStatements = {
  create: (username, password, limits) => [
    `CREATE ROLE "${username}" LOGIN PASSWORD '${password}' CONNECTION LIMIT ${limits.connectionLimit} IN ROLE ${READER_ROLE}`,
    ...row(username, limits),
    reconcile,
  ],
  setLimits: (username, limits) => [...row(username, limits), reconcile],
  setPassword: (username, password) => [`ALTER ROLE "${username}" PASSWORD '${password}'`],
  // No new session from here on; its open ones end next (sessionsOf), then the role goes.
  drop: (username) => [
    `DO $$ BEGIN IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${username}') THEN ALTER ROLE "${username}" NOLOGIN; END IF; END $$`,
  ],
  afterSessionsEnded: (username) => [
    `DROP ROLE IF EXISTS "${username}"`,
    `DELETE FROM replica.logins WHERE username = '${username}'`,
  ],
  sessionsOf: (username) =>
    `SELECT pid AS session FROM pg_stat_activity WHERE usename = '${username}' AND pid <> pg_backend_pid()`,
  endSession: (session) => `SELECT pg_terminate_backend(${session})`,
  enforce: [reconcile, enforce],
  stopsItself: true,
};
