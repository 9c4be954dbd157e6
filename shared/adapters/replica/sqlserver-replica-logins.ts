/**
 * Logins on Azure SQL Database: contained database users with a password (they sign in to the
 * `analytics` database itself, no server login), members of the reader role. The statements take
 * names and passwords the service generated (checked by `safeLogin`), never a caller's text.
 *
 * Azure SQL Database has neither a per-user connection limit nor a server-side statement timeout a
 * user cannot lift (a client's command timeout is the client's): the watchdog (`enforce`) finds the
 * sessions past their login's limits in the DMVs and ends them with KILL, the only way to stop
 * another session's request there. The app's identity needs VIEW DATABASE STATE (to see every
 * session of the database) and KILL DATABASE CONNECTION (the postprovision hook grants both).
 */
import { defaultLimits, type ReplicaLoginLimits } from "../../domain/replica/replica-settings";
import type { LoginStatements } from "./login-statements";
import { READER_ROLE } from "./replica-schema";

const row = (username: string, limits: ReplicaLoginLimits): string[] => [
  `DELETE FROM replica.logins WHERE username = N'${username}'`,
  `INSERT INTO replica.logins (username, connection_limit, statement_timeout_seconds) VALUES (N'${username}', ${limits.connectionLimit}, ${limits.statementTimeoutSeconds})`,
];

/**
 * The reader role's members (contained users and Entra identities an administrator added alike) with
 * their limits, and their sessions past them: a request running too long, a transaction left open
 * idle too long, the newest sessions beyond the connection limit.
 */
const enforce = `WITH limits AS (
  SELECT u.name AS username,
    COALESCE(l.connection_limit, ${defaultLimits.connectionLimit}) AS connection_limit,
    COALESCE(l.statement_timeout_seconds, ${defaultLimits.statementTimeoutSeconds}) AS seconds
  FROM sys.database_role_members m
  JOIN sys.database_principals g ON g.principal_id = m.role_principal_id AND g.name = N'${READER_ROLE}'
  JOIN sys.database_principals u ON u.principal_id = m.member_principal_id
  LEFT JOIN replica.logins l ON l.username = u.name
), sessions AS (
  SELECT s.session_id, s.login_name, x.connection_limit, x.seconds, s.open_transaction_count, s.last_request_end_time,
    (SELECT MAX(r.total_elapsed_time) FROM sys.dm_exec_requests r WHERE r.session_id = s.session_id) AS running_ms,
    ROW_NUMBER() OVER (PARTITION BY s.login_name ORDER BY s.login_time, s.session_id) AS n
  FROM sys.dm_exec_sessions s JOIN limits x ON x.username = s.login_name
  WHERE s.is_user_process = 1 AND s.session_id <> @@SPID
), offending AS (
  SELECT session_id, login_name, CASE
    WHEN n > connection_limit THEN 'connections'
    WHEN running_ms > seconds * 1000 THEN 'statement'
    WHEN running_ms IS NULL AND open_transaction_count > 0 AND DATEDIFF(second, last_request_end_time, SYSDATETIME()) > seconds THEN 'idle-in-transaction'
  END AS reason
  FROM sessions
)
SELECT session_id AS session, login_name AS username, reason FROM offending WHERE reason IS NOT NULL`;

export const sqlServerLoginStatements: LoginStatements = {
  create: (username, password, limits) => [
    `CREATE USER [${username}] WITH PASSWORD = N'${password}'`,
    `ALTER ROLE ${READER_ROLE} ADD MEMBER [${username}]`,
    ...row(username, limits),
  ],
  setLimits: row,
  setPassword: (username, password) => [`ALTER USER [${username}] WITH PASSWORD = N'${password}'`],
  // A dropped user can start no session; one already open lasts until it is killed (next).
  drop: (username) => [`DROP USER IF EXISTS [${username}]`],
  afterSessionsEnded: (username) => [`DELETE FROM replica.logins WHERE username = N'${username}'`],
  sessionsOf: (username) =>
    `SELECT session_id AS session FROM sys.dm_exec_sessions WHERE login_name = N'${username}' AND is_user_process = 1 AND session_id <> @@SPID`,
  endSession: (session) => `KILL ${Math.trunc(session)}`,
  enforce: [enforce],
  stopsItself: false,
};
