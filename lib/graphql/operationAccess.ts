/**
 * Who may call each GraphQL operation: the one table of it (docs/security.md shows it; a test checks both
 * agree and that every root field of the schema has a row).
 *
 * - app Admin: an application token of a registered tenant with the Admin role (spec §5.2), such as a
 *   scheduled import job. It may call every operation.
 * - console user: a person signed in to the administrator console (delegated scope Console.Admin and the
 *   Admin role assigned to the user). The console reads, and changes SCIM integrations, Manual identities and
 *   links; it may do that and nothing else. Imports and associations (and the deletion by absence an import
 *   implies) are machine-to-machine operations (spec §5: "No user signs in"): application tokens only.
 *
 * Checked for every root field of the operation, fragments included, before any resolver runs. A root field
 * without a row is refused to console users (deny by default); introspection (`__schema`, `__type`,
 * `__typename`) is open to both.
 */
import {
  GraphQLError,
  Kind,
  getOperationAST,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context';
import { CODE } from '../util/errorCodes';

export interface OperationAccess {
  type: 'Query' | 'Mutation';
  field: string;
  /** An application token with the Admin role. */
  app: boolean;
  /** A user signed in to the console (Console.Admin scope, Admin role). */
  console: boolean;
}

const row = (type: OperationAccess['type'], field: string, console: boolean): OperationAccess => ({
  type,
  field,
  app: true,
  console,
});

export const OPERATION_ACCESS: readonly OperationAccess[] = [
  row('Query', 'scimIntegrations', true),
  row('Query', 'scimIntegration', true),
  row('Query', 'businessIdentities', true),
  row('Query', 'businessIdentity', true),
  row('Query', 'sources', true),
  row('Query', 'importRuns', true),
  row('Query', 'importRun', true),
  row('Query', 'activity', true),
  row('Query', 'stagedImport', true),
  row('Mutation', 'createScimIntegration', true),
  row('Mutation', 'disableScimIntegration', true),
  row('Mutation', 'enableScimIntegration', true),
  row('Mutation', 'createBusinessIdentity', true),
  row('Mutation', 'updateBusinessIdentity', true),
  row('Mutation', 'deactivateBusinessIdentity', true),
  row('Mutation', 'deleteBusinessIdentity', true),
  row('Mutation', 'linkBusinessIdentity', true),
  row('Mutation', 'unlinkBusinessIdentity', true),
  row('Mutation', 'importBusinessIdentities', false),
  row('Mutation', 'associateBusinessIdentities', false),
  // An import sent in parts: the same machine-to-machine operation as importBusinessIdentities.
  row('Mutation', 'startImport', false),
  row('Mutation', 'addImportPart', false),
  row('Mutation', 'completeImport', false),
];

const INTROSPECTION = new Set(['__schema', '__type', '__typename']);
const byKey = new Map(OPERATION_ACCESS.map((r) => [`${r.type}.${r.field}`, r]));

/** The row of a root field, if the table has one. */
export function accessOf(type: OperationAccess['type'], field: string): OperationAccess | undefined {
  return byKey.get(`${type}.${field}`);
}

/** Whether a console user may call the root field (deny by default). */
export function consoleMayCall(type: OperationAccess['type'], field: string): boolean {
  return INTROSPECTION.has(field) || accessOf(type, field)?.console === true;
}

/** The root fields an operation selects, through inline fragments and fragment spreads. */
export function rootFields(document: DocumentNode, operation: OperationDefinitionNode): string[] {
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  const names = new Set<string>();
  const seen = new Set<string>();
  const sets: SelectionSetNode[] = [operation.selectionSet];
  for (let set = sets.pop(); set; set = sets.pop()) {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) names.add(s.name.value);
      else if (s.kind === Kind.INLINE_FRAGMENT) sets.push(s.selectionSet);
      else if (!seen.has(s.name.value)) {
        seen.add(s.name.value);
        const fragment = fragments.get(s.name.value);
        if (fragment) sets.push(fragment.selectionSet);
      }
    }
  }
  return [...names];
}

/** The refusal of a console user's call; names the operation only when it is one of the table's. */
export function needsApplicationToken(row: OperationAccess | undefined): GraphQLError {
  const what = row ? row.field : 'This operation';
  return new GraphQLError(
    `Not authorized: ${what} needs an application token with the Admin role. A user signed in to the console may run queries and the console's own mutations (SCIM integrations, Manual identities, links); imports and associations are for applications (see docs/security.md)`,
    { extensions: { code: CODE.AUTH_NOT_AUTHORIZED } },
  );
}

/** The first root field of the request that its caller may not call, checked before anything runs. */
async function refusal(args: {
  document: DocumentNode;
  operationName?: string | null;
  contextValue: unknown;
}): Promise<GraphQLError | undefined> {
  const ctx = args.contextValue as GraphQLContext;
  // Without an administrator every resolver refuses on its own (AUTH_NOT_AUTHENTICATED).
  const admin = await ctx.admin().catch(() => undefined);
  if (!admin || admin.caller.kind === 'app') return undefined;
  const operation = getOperationAST(args.document, args.operationName);
  if (!operation || operation.operation === 'subscription') return undefined;
  const type = operation.operation === 'mutation' ? 'Mutation' : 'Query';
  const refused = rootFields(args.document, operation).find((field) => !consoleMayCall(type, field));
  return refused === undefined ? undefined : needsApplicationToken(accessOf(type, refused));
}

export function operationAccess(): Plugin {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const refused = await refusal(args);
      if (refused) setResultAndStopExecution({ errors: [refused] });
    },
  };
}
