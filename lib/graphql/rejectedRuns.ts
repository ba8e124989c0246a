/**
 * An import or association that GraphQL refuses before any resolver runs (input coercion: an enum
 * value the schema does not have in the variables, a null for a required field, a wrong type) still
 * leaves a REJECTED run in the source's run history (importRuns), so a nightly job whose request was
 * refused leaves a trace. Only for an authenticated administrator, and only when the request names a
 * valid source; the run record holds counts and a fixed message, never a value of the request.
 */
import { Kind, parse, type DocumentNode, type ObjectValueNode, type OperationDefinitionNode } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context';
import type { RunOperation } from '../imports/runHistory';
import { validateSourceName } from '../imports/importInput';
import { DomainError } from '../util/domainError';
import { CODE } from '../util/errorCodes';

const RUN_FIELDS: Record<string, { operation: RunOperation; list: string }> = {
  importBusinessIdentities: { operation: 'import', list: 'identities' },
  associateBusinessIdentities: { operation: 'association', list: 'associations' },
};

/** Refusals that are no run: the service's limits, and an operation its caller may not call (operationAccess). */
const LIMIT_CODES: ReadonlySet<string> = new Set([
  CODE.QUERY_TOO_COMPLEX,
  CODE.QUERY_TOO_LARGE,
  CODE.AUTH_NOT_AUTHORIZED,
]);

export const REFUSED_AT_COERCION =
  'The request does not match the GraphQL schema (a value of the wrong type, an unknown enum value or a missing required field); nothing was written. The response errors name the place.';

interface RefusedRun {
  operation: RunOperation;
  source: string;
  submitted: number;
}

function operationOf(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  return name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
}

/** The value of `input.<member>` as sent: a literal, or (also inside the literal) a variable's value. */
function inputMember(
  input: ObjectValueNode | unknown,
  member: string,
  variables: Record<string, unknown>,
): { literal?: unknown; value?: unknown } {
  if (typeof input === 'object' && input !== null && 'kind' in input && input.kind === Kind.OBJECT) {
    const field = (input as ObjectValueNode).fields.find((f) => f.name.value === member);
    if (!field) return {};
    if (field.value.kind === Kind.VARIABLE) return { value: variables[field.value.name.value] };
    if (field.value.kind === Kind.STRING) return { value: field.value.value };
    if (field.value.kind === Kind.LIST) return { value: field.value.values };
    return { literal: field.value };
  }
  if (typeof input === 'object' && input !== null) return { value: (input as Record<string, unknown>)[member] };
  return {};
}

/** The import and association fields of a refused mutation, with their source and size. */
export function refusedRuns(params: GraphQLParams): RefusedRun[] {
  if (typeof params.query !== 'string') return [];
  let document: DocumentNode;
  try {
    document = parse(params.query);
  } catch {
    return [];
  }
  const operation = operationOf(document, params.operationName);
  if (!operation || operation.operation !== 'mutation') return [];
  const variables = (params.variables ?? {}) as Record<string, unknown>;
  const runs: RefusedRun[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const field = RUN_FIELDS[selection.name.value];
    if (!field) continue;
    const arg = selection.arguments?.find((a) => a.name.value === 'input')?.value;
    const input = arg?.kind === Kind.VARIABLE ? variables[arg.name.value] : arg;
    const source = inputMember(input, 'source', variables).value;
    const list = inputMember(input, field.list, variables).value;
    let name: string;
    try {
      name = validateSourceName(source);
    } catch {
      continue; // no valid source to record the run under: the response's errors are all there is
    }
    runs.push({ operation: field.operation, source: name, submitted: Array.isArray(list) ? list.length : 0 });
  }
  return runs;
}

export function rejectedRuns(): Plugin<Record<string, unknown>, GraphQLContext> {
  const paramsOf = new WeakMap<Request, GraphQLParams>();
  return {
    onParams({ request, params }) {
      paramsOf.set(request, params);
    },
    async onResultProcess({ request, result, serverContext }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      // Refused before execution: errors and no data at all (a resolver's failure comes with data).
      if (!result.errors?.length || 'data' in result) return;
      // A document refused by the service's limits (size, depth, more than one bulk mutation) or sent by a caller
      // who may not run it never asked for a run.
      if (result.errors.some((e) => LIMIT_CODES.has(String(e.extensions?.code)))) return;
      const params = paramsOf.get(request);
      if (!params) return;
      const runs = refusedRuns(params);
      if (runs.length === 0) return;
      let tenantId: string;
      let clientId: string;
      try {
        const admin = await serverContext.admin();
        ({ tenantId, clientId } = admin.caller);
      } catch {
        return; // not an administrator: nothing is recorded
      }
      for (const run of runs) {
        await serverContext.services.runs
          .record(
            { tenantId, clientId, correlationId: serverContext.correlationId, ...run },
            serverContext.log,
            () => Promise.reject(new DomainError(CODE.BAD_USER_INPUT, REFUSED_AT_COERCION)),
            () => ({}),
          )
          .catch((err: unknown) => {
            if (!(err instanceof DomainError))
              serverContext.log.warn('refused run not recorded', { tenantId, operation: run.operation });
          });
      }
    },
  };
}
