/**
 * GET /activity/export?format=csv|json&source=…&from=…&until=…&action=…&outcome=…&run=…&externalId=…: the
 * activity selection as a CSV or JSON-lines download, for the console's download button and scripts. The
 * caller is authenticated as for GraphQL (an application token with the Admin role or a console user) before
 * anything else is read; the selection is checked and its first page read before the answer begins (a refusal
 * is a status and a JSON error, as GraphQL's codes). The body is streamed: a page of the store is read only
 * when the lines of the one before have been taken by the connection (lib/activity/export.ts), so the
 * service holds one page, whatever the selection's size, and the export ends at MAX_EXPORT_ENTRIES with a
 * line that says so. One export per tenant runs at a time on an instance beside its GraphQL requests' places.
 */
import type { HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import { ReadableStream } from 'node:stream/web';
import { GraphQLError } from 'graphql';
import { services } from '../services';
import { authenticateAdmin } from '../graphql/context';
import { toGraphQLError } from '../graphql/errors';
import { cleanError } from '../graphql/errorHygiene';
import { activityDeps } from '../graphql/activityResolvers';
import { parseSelection } from '../activity/activityPage';
import { exportLines, selectionReader, type ExportFormat } from '../activity/export';
import { CODE } from '../util/errorCodes';
import { badInput } from '../util/domainError';
import { SECURITY_HEADERS, correlationIdOf, loggerFor } from './request';

const STATUS: Partial<Record<string, number>> = {
  [CODE.AUTH_NOT_AUTHENTICATED]: 401,
  [CODE.AUTH_NOT_AUTHORIZED]: 403,
  [CODE.BAD_USER_INPUT]: 400,
  [CODE.NOT_FOUND]: 404,
  [CODE.SERVICE_BUSY]: 503,
};

const CONTENT_TYPE: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/x-ndjson; charset=utf-8',
};

/** The query parameters the export reads; any other is refused (a typo would widen the selection). */
const PARAMETERS = new Set(['format', 'source', 'from', 'until', 'since', 'action', 'outcome', 'run', 'externalId']);

function refusal(err: unknown, correlationId: string): HttpResponseInit {
  const mapped = toGraphQLError(err);
  const error = cleanError(
    mapped instanceof GraphQLError
      ? mapped
      : new GraphQLError('Internal error', { extensions: { code: CODE.INTERNAL_SERVER_ERROR } }),
  );
  const code = String(error.extensions.code ?? CODE.INTERNAL_SERVER_ERROR);
  return {
    status: STATUS[code] ?? 500,
    headers: {
      ...SECURITY_HEADERS,
      'content-type': 'application/json; charset=utf-8',
      'x-correlation-id': correlationId,
      ...(code === CODE.AUTH_NOT_AUTHENTICATED ? { 'www-authenticate': 'Bearer' } : {}),
    },
    body: JSON.stringify({ errors: [error] }),
  };
}

function formatOf(query: URLSearchParams): ExportFormat {
  const format = query.get('format') ?? 'csv';
  if (format === 'csv' || format === 'json') return format;
  throw badInput([{ field: 'format', problem: 'must be csv or json' }]);
}

export async function handleActivityExport(
  request: HttpRequest,
  context: InvocationContext,
): Promise<HttpResponseInit> {
  const correlationId = correlationIdOf(request, context);
  const log = loggerFor(context, { correlationId, route: 'activity/export' });
  const svc = services();
  let release: (() => void) | undefined;
  try {
    const { caller } = await authenticateAdmin(svc, request.headers.get('authorization'), log);
    const query = new URL(request.url).searchParams;
    const unknown = [...query.keys()].filter((k) => !PARAMETERS.has(k));
    if (unknown.length > 0) throw badInput([{ field: 'query', problem: `takes only ${[...PARAMETERS].join(', ')}` }]);
    const format = formatOf(query);
    const selection = parseSelection(
      {
        source: query.get('source'),
        from: query.get('from'),
        until: query.get('until'),
        since: query.get('since'),
        action: query.get('action'),
        outcome: query.get('outcome'),
        run: query.get('run'),
        externalId: query.get('externalId'),
      },
      'query',
    );
    release = svc.inFlight.tryAcquire(`activityExport:${caller.tenantId}`);
    if (!release)
      throw new GraphQLError('Another export of the organization is running on this instance; try again shortly', {
        extensions: { code: CODE.SERVICE_BUSY, retryAfterSeconds: 5 },
      });
    const lines = await exportLines(selectionReader(activityDeps(svc), caller.tenantId, selection), format);
    const encoder = new TextEncoder();
    const done = release;
    release = undefined;
    const body = new ReadableStream<Uint8Array>({
      // Pulled as the connection takes the bytes: the next page is read only then.
      async pull(controller) {
        try {
          const next = await lines.next();
          if (next.done) {
            done();
            controller.close();
          } else controller.enqueue(encoder.encode(`${next.value}\n`));
        } catch (err) {
          done();
          log.warn('activity export stopped', { failure: err instanceof Error ? err.name : 'unexpected' });
          controller.error(err);
        }
      },
      async cancel() {
        done();
        await lines.return(undefined);
      },
    });
    log.info('activity export', { format, tenantId: caller.tenantId });
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    return {
      status: 200,
      headers: {
        ...SECURITY_HEADERS,
        'content-type': CONTENT_TYPE[format],
        'content-disposition': `attachment; filename="activity-${stamp}.${format === 'csv' ? 'csv' : 'jsonl'}"`,
        'x-correlation-id': correlationId,
      },
      body,
    };
  } catch (err) {
    release?.();
    return refusal(err, correlationId);
  }
}
