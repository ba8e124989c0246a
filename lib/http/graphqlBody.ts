/**
 * The body of an administrator's GraphQL request, read within its bounds before graphql-yoga sees it:
 * - its bytes: GRAPHQL_MAX_BODY_BYTES for JSON (the variables carry imports), GRAPHQL_MAX_QUERY_BYTES for
 *   any other media type (the body is the document); a declared Content-Length over it is refused without
 *   reading, a body without one as soon as its bytes pass it;
 * - what JSON.parse would build of it: its JSON values and nesting are counted as the bytes come
 *   (GRAPHQL_MAX_JSON_VALUES, GRAPHQL_MAX_JSON_DEPTH), and the `query` member's text is measured;
 * - the instance's body bytes and the tenant's share of them (lib/limits/bodyBytes.ts), held as it is read;
 * - its pace (lib/http/request.ts): a trickling body is refused once it falls behind the minimum rate.
 * Every refusal is immediate: the rest of the body is not read.
 */
import type { HttpRequest } from '@azure/functions';
import { GraphQLError } from 'graphql';
import type { Settings } from '../config/settings';
import { serviceBusy } from '../graphql/errors';
import { QueryTextMeter } from '../graphql/queryTextMeter';
import { queryTooLarge, useStagedImport } from '../graphql/limits';
import type { BodyBytesHold } from '../limits/bodyBytes';
import { JsonShapeMeter } from './jsonShape';
import { BODY_IDLE_MS, MIN_BODY_BYTES_PER_SECOND, readBodyText } from './request';
import { CODE, type ErrorCode } from '../util/errorCodes';

/** Seconds a request refused for body bytes is told to wait (the bodies held are done or refused by then, mostly). */
export const BODY_BYTES_RETRY_AFTER_SECONDS = 10;

/** How a request is answered instead of being executed. */
export interface BodyRefusal {
  status: 200 | 408 | 413;
  error: GraphQLError;
  /** `data: null` beside the error (a refusal of the caller's share, not of the request itself). */
  withNullData: boolean;
}

export type GraphQLBody = { text: string | undefined } | { refusal: BodyRefusal };

export type BodyLimits = Pick<
  Settings,
  'graphqlMaxBodyBytes' | 'graphqlMaxQueryBytes' | 'graphqlMaxJsonValues' | 'graphqlMaxJsonDepth'
>;

const badRequest = (message: string, code: ErrorCode = CODE.BAD_REQUEST) =>
  new GraphQLError(message, { extensions: { code } });

/** A JSON request body (graphql-yoga's default when the content type is missing). */
function isJsonBody(contentType: string | null): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === undefined || type === '' || type === 'application/json' || type === 'application/graphql+json';
}

const busy = (): BodyRefusal => ({
  status: 200,
  error: serviceBusy(BODY_BYTES_RETRY_AFTER_SECONDS),
  withNullData: true,
});

/** Reads the request's body (none for GET and HEAD), or the refusal that answers the request. */
export async function readGraphQLBody(
  request: HttpRequest,
  limits: BodyLimits,
  bodyBytes: BodyBytesHold,
): Promise<GraphQLBody> {
  if (request.method === 'GET' || request.method === 'HEAD') return { text: undefined };
  // In a JSON body only the query text is capped apart (variables carry imports); any other body is the query.
  const json = isJsonBody(request.headers.get('content-type'));
  const max = json ? limits.graphqlMaxBodyBytes : limits.graphqlMaxQueryBytes;
  const tooLarge = (): BodyRefusal =>
    json
      ? { status: 413, error: useStagedImport('bodyBytes', max), withNullData: false }
      : { status: 413, error: queryTooLarge(max), withNullData: false };
  // The declared length is held before anything is read; a body without one holds its bytes as they come.
  const declared = Number(request.headers.get('content-length') ?? '');
  const known = Number.isSafeInteger(declared) && declared > 0;
  if (known && declared > max) return { refusal: tooLarge() };
  if (known && !bodyBytes.grow(declared)) return { refusal: busy() };

  const query = new QueryTextMeter(limits.graphqlMaxQueryBytes);
  const shape = new JsonShapeMeter(limits.graphqlMaxJsonValues, limits.graphqlMaxJsonDepth);
  let refusal: BodyRefusal | undefined;
  const refused = (chunk: Uint8Array): BodyRefusal | undefined => {
    if (!known && !bodyBytes.grow(chunk.byteLength)) return busy();
    if (!json) return undefined;
    if (query.exceeded(chunk))
      return { status: 413, error: queryTooLarge(limits.graphqlMaxQueryBytes), withNullData: false };
    const excess = shape.feed(chunk);
    if (excess === 'values')
      return { status: 413, error: useStagedImport('jsonValues', limits.graphqlMaxJsonValues), withNullData: false };
    if (excess === 'depth')
      return { status: 413, error: useStagedImport('jsonDepth', limits.graphqlMaxJsonDepth), withNullData: false };
    return undefined;
  };
  const text = await readBodyText(request, max, { refuseAfter: (chunk) => (refusal = refused(chunk)) !== undefined });
  if (text === 'refused') return { refusal: refusal ?? tooLarge() };
  if (text === 'tooLarge') return { refusal: tooLarge() };
  if (text === 'tooSlow') {
    const late = badRequest(
      `The request body arrived too slowly: send it without pausing ${BODY_IDLE_MS / 1000} s and at ${MIN_BODY_BYTES_PER_SECOND} bytes per second or faster`,
      CODE.REQUEST_TIMEOUT,
    );
    return { refusal: { status: 408, error: late, withNullData: false } };
  }
  if (text === 'invalidEncoding')
    return { refusal: { status: 200, error: badRequest('The request body is not valid UTF-8'), withNullData: false } };
  return { text };
}
