import { READER_ROLE } from "./replica-schema";

/**
 * Logins on Azure SQL Database: contained database users with a password (they sign in to the
 * `analytics` database itself, no server login), members of the reader role. The statements take
 * names and passwords the service generated (checked by `safeLogin`), never a caller's text.
 */
export const sqlServerLoginStatements = {
  create: (username: string, password: string): string[] => [
    `CREATE USER [${username}] WITH PASSWORD = N'${password}'`,
    `ALTER ROLE ${READER_ROLE} ADD MEMBER [${username}]`,
  ],
  setPassword: (username: string, password: string): string[] => [
    `ALTER USER [${username}] WITH PASSWORD = N'${password}'`,
  ],
  // Azure SQL Database lets no database user end another's sessions: a dropped user's open session
  // lasts until it disconnects, and no new one can start.
  drop: (username: string): string[] => [`DROP USER IF EXISTS [${username}]`],
};
