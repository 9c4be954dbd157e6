import { READER_ROLE } from "./replica-schema";

/** Logins on the local PostgreSQL server: roles that can log in, members of the reader role. */
export const postgresLoginStatements = {
  create: (username: string, password: string): string[] => [
    `CREATE ROLE "${username}" LOGIN PASSWORD '${password}' IN ROLE ${READER_ROLE}`,
  ],
  setPassword: (username: string, password: string): string[] => [`ALTER ROLE "${username}" PASSWORD '${password}'`],
  // Its open sessions end with it: a deleted login is gone at once.
  drop: (username: string): string[] => [
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${username}'`,
    `DROP ROLE IF EXISTS "${username}"`,
  ],
};
