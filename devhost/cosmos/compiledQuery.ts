/**
 * A query compiled once by `@zeit/cosmosdb-query` and run over a list of candidate documents.
 * The library recompiles its generated JavaScript on every run and collects the documents with a
 * spread per element (quadratic in the number of documents); here the function is built once and
 * the collection step appends in place, so a run costs time linear in its candidates.
 */
import { aggregateFunctions, builtinFunctions, parseQuery, queryHelpers, type Json, type LibQuery } from './library';

export interface QueryOutput {
  result: unknown[];
  continuation: { token: string } | null;
}

export interface RunOptions {
  parameters: Record<string, unknown>;
  maxItemCount?: number | null;
  continuation?: { token: string } | null;
  compositeIndexes?: unknown[];
}

type Generated = (
  aggregates: Json,
  builtins: Json,
  collection: Json[],
  helpers: Json,
  udf: Json,
  params: Record<string, unknown>,
  maxItemCount: number | null | undefined,
  continuation: { token: string } | null | undefined,
  compositeIndexes: unknown[] | undefined,
) => QueryOutput | unknown;

const QUADRATIC_COLLECT = /typeof (\w+) !== "undefined" \? \[\.\.\.\$, \{\s*(\w+): (\w+)\s*\}\] : \$, \[\]\)/g;

export class CompiledQuery {
  readonly ast: Json;
  private fn: Generated | undefined;

  constructor(
    readonly sql: string,
    private readonly query: LibQuery = parseQuery(sql),
  ) {
    this.ast = query.ast;
  }

  containsPartitionKeys(paths: string[]): boolean {
    return this.query.containsPartitionKeys(paths);
  }

  run(candidates: Json[], options: RunOptions): QueryOutput {
    if (!this.fn) {
      const code = this.query.code.replace(
        QUADRATIC_COLLECT,
        'typeof $1 !== "undefined" ? ($.push({ $2: $3 }), $) : $, [])',
      );
      this.fn = new Function(`"use strict";return (${code})`)() as Generated;
    }
    const out = this.fn(
      aggregateFunctions,
      builtinFunctions,
      candidates,
      queryHelpers,
      {},
      options.parameters,
      options.maxItemCount,
      options.continuation,
      options.compositeIndexes,
    );
    return out as QueryOutput;
  }
}

/** Compiled queries by SQL text (the service sends a few dozen distinct texts). */
export class QueryCache {
  private readonly entries = new Map<string, CompiledQuery>();

  constructor(private readonly max = 500) {}

  get(sql: string): CompiledQuery {
    let q = this.entries.get(sql);
    if (q) {
      this.entries.delete(sql);
      this.entries.set(sql, q);
      return q;
    }
    q = new CompiledQuery(sql);
    this.entries.set(sql, q);
    if (this.entries.size > this.max) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return q;
  }
}
