/**
 * The reach into @vercel/cosmosdb-server's internals: its in-memory model is not exported, and durability
 * (journal replay, snapshots) and partition-scoped queries need it. Everything used is named here and
 * checked when the stand-in starts, so a version whose shape differs fails at once with a clear message
 * instead of losing data or answering queries wrongly later.
 */

/** The version these members were read from; package.json pins it. */
export const PINNED_STAND_IN_VERSION = "1.0.1";

export type Doc = Record<string, unknown>;

export interface StandInItem {
  read(): Doc | undefined;
}

export interface StandInItems {
  _data: Map<string, StandInItem>;
  create(data: Doc): unknown;
  upsert(data: Doc): unknown;
  delete: (idOrRid: string, partition?: unknown) => void;
}

/** A container's documents: the members the partition index wraps or calls. */
export interface StandInDocuments extends StandInItems {
  /** The counter `_rid`s are made from: restored with a snapshot, so new documents never reuse one. */
  _ridCount: number;
  /** Stores a document under its `_rid` (every create, replace and upsert ends here). */
  _set: (data: Doc) => Doc;
  /** The `_rid` an id (or rid) names within a partition. */
  _toRid(keyPath: string, idOrRid: string, partition: unknown): string;
  /** The partition key value of a document. */
  _getPartition(data: Doc): unknown;
  query: (params: unknown, options: unknown) => unknown;
}

export interface StandInCollection extends StandInItem {
  documents: StandInDocuments;
}

export interface StandInDatabase extends StandInItem {
  collections: StandInItems;
  collection(id: string): StandInCollection;
}

export interface StandInAccount {
  databases: StandInItems;
  database(id: string): StandInDatabase;
}

type Constructor = (new (...args: unknown[]) => object) & { prototype: object };

function fail(what: string): never {
  throw new Error(
    `@vercel/cosmosdb-server does not have the shape the local runtime relies on (${what}); ` +
      `local/cosmos/stand-in-internals.ts was written against version ${PINNED_STAND_IN_VERSION}. ` +
      `Reinstall the pinned version (npm ci) or adapt that file.`,
  );
}

function requireModule(path: string): Record<string, unknown> {
  try {
    return require(path) as Record<string, unknown>;
  } catch (error) {
    return fail(`cannot load ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function requireMethods(prototype: object, owner: string, names: readonly string[]): void {
  for (const name of names) {
    if (typeof (prototype as Record<string, unknown>)[name] !== "function")
      fail(`${owner}.prototype.${name} is not a function`);
  }
}

/** The stand-in's classes this process reaches into, after checking the version and every member used. */
export function standInClasses(): { accountModule: { default: Constructor }; Documents: Constructor } {
  const pkg = requireModule("@vercel/cosmosdb-server/package.json");
  if (pkg.version !== PINNED_STAND_IN_VERSION)
    fail(`installed version is ${String(pkg.version)}, expected ${PINNED_STAND_IN_VERSION}`);
  const accountModule = requireModule("@vercel/cosmosdb-server/lib/account");
  const documentsModule = requireModule("@vercel/cosmosdb-server/lib/account/documents");
  const Account = accountModule.default;
  const Documents = documentsModule.default;
  if (typeof Account !== "function") fail("lib/account has no default export class");
  if (typeof Documents !== "function") fail("lib/account/documents has no default export class");
  requireMethods((Account as Constructor).prototype, "Account", ["database"]);
  requireMethods((Documents as Constructor).prototype, "Documents", [
    "_set",
    "_toRid",
    "_getPartition",
    "query",
    "create",
    "upsert",
    "delete",
    "read",
  ]);
  return { accountModule: accountModule as { default: Constructor }, Documents: Documents as Constructor };
}

/** Checks a container's document store before the restore writes into it directly. */
export function checkDocuments(documents: StandInDocuments): StandInDocuments {
  if (!(documents?._data instanceof Map)) fail("collection.documents._data is not a Map");
  if (typeof documents._ridCount !== "number") fail("collection.documents._ridCount is not a number");
  return documents;
}

/** Checks the instance members (they exist only once an account is built): maps and accessors. */
export function checkAccount(account: StandInAccount): StandInAccount {
  if (!(account.databases?._data instanceof Map)) fail("account.databases._data is not a Map");
  for (const name of ["create", "upsert", "delete"] as const) {
    if (typeof account.databases[name] !== "function") fail(`account.databases.${name} is not a function`);
  }
  return account;
}

/**
 * Captures each account the stand-in builds (its server creates one and does not expose it): the
 * returned function yields the newest one.
 */
export function captureAccounts(accountModule: { default: Constructor }): () => StandInAccount {
  let captured: StandInAccount | undefined;
  const Original = accountModule.default;
  accountModule.default = class extends Original {
    constructor(...args: unknown[]) {
      super(...args);
      captured = checkAccount(this as unknown as StandInAccount);
    }
  };
  return () => {
    if (captured === undefined) throw new Error("the Cosmos stand-in has not started");
    return captured;
  };
}
