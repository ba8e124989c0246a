/**
 * Query-shape limits: selection depth and number of aliased fields. Checked during validation,
 * before anything runs, so a hostile query costs a parse and one walk of the document.
 */
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';
import { CODE } from '../util/errorCodes';

export const MAX_DEPTH = 10;
/**
 * Introspection (`__schema`, `__type` at the root; only where introspection is on) may go deeper: GraphiQL's
 * standard query nests `ofType` seven times. It stays bounded, as the schema's own types are.
 */
export const MAX_INTROSPECTION_DEPTH = 16;
const INTROSPECTION_ROOTS = new Set(['__schema', '__type']);
/** Tokens graphql-js may read from one document before it stops parsing (a 500-field query needs far fewer). */
export const MAX_TOKENS = 5_000;
/** Mutations that each carry a list of identities or pairs (a set, a part, an association): at most one per document. */
export const BULK_MUTATIONS: ReadonlySet<string> = new Set([
  'importBusinessIdentities',
  'associateBusinessIdentities',
  'addImportPart',
]);
export const MAX_ALIASES = 20;
/** Field selections in one document; graphql-js's overlapping-fields check costs the square of them. */
export const MAX_FIELDS = 500;

/** Number of field selections in the whole document (every definition, fragments counted once). */
export function fieldCount(document: DocumentNode): number {
  let count = 0;
  const sets: SelectionSetNode[] = [];
  for (const d of document.definitions) if ('selectionSet' in d && d.selectionSet) sets.push(d.selectionSet);
  for (let set = sets.pop(); set; set = sets.pop()) {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) count++;
      if (s.kind !== Kind.FRAGMENT_SPREAD && s.selectionSet) sets.push(s.selectionSet);
    }
  }
  return count;
}

export function queryTooLarge(maxBytes: number): GraphQLError {
  return new GraphQLError(
    `The query text is longer than ${maxBytes} bytes; send large inputs as variables, not in the document`,
    { extensions: { code: CODE.QUERY_TOO_LARGE } },
  );
}

/** The bound of a request body that was passed: its bytes, its JSON values or its JSON nesting. */
export type BodyBound = 'bodyBytes' | 'jsonValues' | 'jsonDepth';

const BOUND_TEXT: Record<BodyBound, (max: number) => string> = {
  bodyBytes: (max) => `larger than ${max} bytes`,
  jsonValues: (max) => `made of more than ${max} JSON values`,
  jsonDepth: (max) => `nested deeper than ${max} levels`,
};

/**
 * A request body over one of its bounds (HTTP 413): a set that large goes in parts. The extensions say which
 * bound and its value (never anything of the body).
 */
export function useStagedImport(bound: BodyBound, max: number): GraphQLError {
  return new GraphQLError(
    `The request body is ${BOUND_TEXT[bound](max)}. Send a large import as a staged import (startImport, then addImportPart with at most a few thousand identities each, then completeImport) and a long association list as several requests`,
    { extensions: { code: CODE.USE_STAGED_IMPORT, bound, max } },
  );
}

export function tooManyTokens(): GraphQLError {
  return new GraphQLError(`A query may have at most ${MAX_TOKENS} tokens`, {
    extensions: { code: CODE.QUERY_TOO_COMPLEX },
  });
}

export function tooManyFields(): GraphQLError {
  return new GraphQLError(`A query may select at most ${MAX_FIELDS} fields`, {
    extensions: { code: CODE.QUERY_TOO_COMPLEX },
  });
}

function depthOf(
  set: SelectionSetNode | undefined,
  fragments: Map<string, FragmentDefinitionNode>,
  seen: Set<string>,
): number {
  if (!set) return 0;
  let max = 0;
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD) max = Math.max(max, s.selectionSet ? 1 + depthOf(s.selectionSet, fragments, seen) : 1);
    else if (s.kind === Kind.INLINE_FRAGMENT) max = Math.max(max, depthOf(s.selectionSet, fragments, seen));
    else if (!seen.has(s.name.value)) {
      const f = fragments.get(s.name.value);
      if (f) max = Math.max(max, depthOf(f.selectionSet, fragments, new Set([...seen, s.name.value])));
    }
  }
  return max;
}

export function queryLimitsRule(context: ValidationContext): ASTVisitor {
  let aliases = 0;
  let bulk = 0;
  return {
    Field(node) {
      if (BULK_MUTATIONS.has(node.name.value) && ++bulk === 2) {
        context.reportError(
          new GraphQLError(
            'A document may run at most one importBusinessIdentities, addImportPart or associateBusinessIdentities',
            {
              extensions: { code: CODE.QUERY_TOO_COMPLEX },
            },
          ),
        );
      }
      if (node.alias) aliases++;
      if (aliases === MAX_ALIASES + 1) {
        context.reportError(
          new GraphQLError(`A query may use at most ${MAX_ALIASES} aliases`, {
            extensions: { code: CODE.QUERY_TOO_COMPLEX },
          }),
        );
      }
    },
    OperationDefinition(node) {
      const fragments = new Map(
        context
          .getDocument()
          .definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
          .map((f) => [f.name.value, f]),
      );
      const roots = node.selectionSet.selections;
      const isIntrospection = (s: (typeof roots)[number]) =>
        s.kind === Kind.FIELD && INTROSPECTION_ROOTS.has(s.name.value);
      const introspection = roots.filter(isIntrospection);
      const rest = roots.filter((s) => !isIntrospection(s));
      const depth = (selections: typeof roots) =>
        depthOf({ kind: Kind.SELECTION_SET, selections }, fragments, new Set());
      if (depth(rest) > MAX_DEPTH || depth(introspection) > MAX_INTROSPECTION_DEPTH) {
        context.reportError(
          new GraphQLError(`A query may be at most ${MAX_DEPTH} levels deep`, {
            extensions: { code: CODE.QUERY_TOO_COMPLEX },
          }),
        );
      }
    },
  };
}
