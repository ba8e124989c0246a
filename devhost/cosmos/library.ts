/**
 * Typed seam to the parts of `@vercel/cosmosdb-server` (wire protocol, routing, database and
 * container resources) and `@zeit/cosmosdb-query` (SQL parser and evaluator) the local engine
 * builds on. The libraries ship JavaScript without usable types for these internals.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type Json = Record<string, unknown>;

/** A stored resource of the library (database, container): `read()` gives its JSON or undefined. */
export interface LibItem {
  read(): Json | undefined;
}

/** The library's resource list (databases of the account, containers of a database). */
export interface LibItems<T extends LibItem> {
  _data: Map<string, T>;
  _ridCount: number;
  _newItem(data: Json): T;
  _set(data: Json): Json;
  create(data: Json): Json;
  replace(data: Json, original: Json): Json;
  delete(idOrRid: string, partition: string): void;
  _item(keyPath: string, value: string, partition: string): T;
}

export interface LibCollection extends LibItem {
  /** What `read()` returns (the container's settings). */
  _data: Json | undefined;
  documents: unknown;
}

export interface LibDatabase extends LibItem {
  collections: LibItems<LibCollection>;
  collection(idOrRid: string): LibCollection;
}

export interface LibAccount {
  databases: LibItems<LibDatabase>;
  database(idOrRid: string): LibDatabase;
}

/** The library's own document list of a container; used only for its resource-id scheme. */
export interface LibDocuments {
  _rid(n: number): string;
  _self(rid: string): string;
}

export type RouteHandler = (
  account: LibAccount,
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
) => unknown;

interface AccountConstructor {
  new (host: string, port: number): LibAccount;
}
type ItemConstructor<T> = new (data: Json) => T;

export const Account = (require('@vercel/cosmosdb-server/lib/account') as { default: AccountConstructor }).default;
export const Database = (
  require('@vercel/cosmosdb-server/lib/account/database') as { default: ItemConstructor<LibDatabase> }
).default;
export const Collection = (
  require('@vercel/cosmosdb-server/lib/account/collection') as { default: ItemConstructor<LibCollection> }
).default;
export const route = (
  require('@vercel/cosmosdb-server/lib/routes') as {
    default: (req: IncomingMessage) => [Record<string, string>, RouteHandler] | undefined;
  }
).default;
export const queryDocumentsHandler = (
  require('@vercel/cosmosdb-server/lib/handler/query-documents') as { default: RouteHandler }
).default;
export const batchDocumentsHandler = (
  require('@vercel/cosmosdb-server/lib/handler/batch-documents') as { default: RouteHandler }
).default;
export const readJsonBody = (
  require('@vercel/cosmosdb-server/lib/json') as { default: (req: IncomingMessage) => Promise<unknown> }
).default;
const documentOperations = require('@vercel/cosmosdb-server/lib/handler/_document-operations') as Record<
  'createOperation' | 'upsertOperation' | 'readOperation' | 'deleteOperation' | 'replaceOperation',
  (collection: LibCollection, input: Json) => { statusCode: number; body?: Json }
>;
export { documentOperations };

/** A parsed, compiled query of `@zeit/cosmosdb-query`. */
export interface LibQuery {
  ast: Json;
  code: string;
  containsPartitionKeys(paths: string[]): boolean;
}
const queryModule = require('@zeit/cosmosdb-query') as {
  default: (sql: string) => LibQuery;
  SyntaxError: new (...args: unknown[]) => Error;
};
export const parseQuery = queryModule.default;
export const QuerySyntaxError = queryModule.SyntaxError;

export const queryHelpers = require('@zeit/cosmosdb-query/lib/helpers') as Json;
export const aggregateFunctions = require('@zeit/cosmosdb-query/lib/aggregate-functions') as Json;
export const builtinFunctions = require('@zeit/cosmosdb-query/lib/builtin-functions') as Json;

/** Encoding of the continuation tokens the evaluator hands out (`RTD` holds the order-by values of the next item). */
export const continuationToken = require('@zeit/cosmosdb-query/lib/continuation-token') as {
  decode(token: string): { RID?: string; RT?: number; TRC?: number; RTD?: unknown[] };
};
