/**
 * A small stand-in for the service's staged import contract (startImport, addImportPart, completeImport,
 * stagedImport, importRun with progress), with a token endpoint, over node:http: for unit tests of the
 * reference client's upload, resume, retries, progress and token renewal. It is not the service: it
 * applies a set by comparing it with the last one of the source, one step per look at the run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

type Identity = { externalId: string } & Record<string, unknown>;
type Counts = { created: number; updated: number; deleted: number; unchanged: number };

interface StagedImport {
  importId: string;
  source: string;
  dryRun: boolean;
  maxDeletedRatio?: number;
  parts: Map<number, Identity[]>;
  runId?: string;
}

interface Run {
  id: string;
  status: 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'REJECTED';
  identities: Identity[];
  source: string;
  dryRun: boolean;
  maxDeletedRatio?: number;
  looks: number;
  counts?: Counts;
  failure?: { code: string; message: string };
}

export interface FakeStagedService {
  url: string;
  maxIdentitiesPerPart: number;
  /** Seconds a token lives. */
  tokenLifetimeS: number;
  /** Looks at a run before it ends (its progress moves in between). */
  looksPerRun: number;
  tokensIssued: number;
  /** Requests that came with an expired token. */
  expiredTokenUses: number;
  /** Every addImportPart received: the import, its sequence, its identities, the body's bytes. */
  partsReceived: Array<{ importId: string; sequence: number; identities: number; bodyBytes: number }>;
  /** Every associateBusinessIdentities received: its pairs and body bytes. */
  associations: Array<{ pairs: number; bodyBytes: number }>;
  /** GraphQL operations in order (startImport, addImportPart, …). */
  operations: string[];
  imports: Map<string, StagedImport>;
  runs: Map<string, Run>;
  /** What each source holds (externalId → the identity's JSON). */
  sources: Map<string, Map<string, string>>;
  /** Called when a part was stored (before it is answered). */
  onPart?: (sequence: number, importId: string) => void;
  /** Faults, each taken once: SERVICE_BUSY, a broken connection, a forgotten part, a refused identity. */
  faults: {
    busyOnPart?: number;
    dropOnPart?: number;
    forgetPartAtCompletion?: number;
    badInputOnPart?: { sequence: number; index: number };
    /** startImport answers IMPORT_IN_PROGRESS naming this run (of another import of the source), once. */
    inProgressAtStart?: string;
  };
  close(): Promise<void>;
}

const graphqlAnswer = (data: unknown) => ({ data });
const graphqlError = (code: string, message: string, extensions: Record<string, unknown> = {}) => ({
  errors: [{ message, extensions: { code, ...extensions } }],
  data: null,
});

function apply(run: Run, held: Map<string, string>): void {
  const next = new Map(run.identities.map((i) => [i.externalId, JSON.stringify(i)]));
  const counts: Counts = { created: 0, updated: 0, deleted: 0, unchanged: 0 };
  for (const [id, json] of next) {
    const before = held.get(id);
    if (before === undefined) counts.created++;
    else if (before === json) counts.unchanged++;
    else counts.updated++;
  }
  for (const id of held.keys()) if (!next.has(id)) counts.deleted++;
  if (run.maxDeletedRatio !== undefined && held.size > 0 && counts.deleted / held.size > run.maxDeletedRatio) {
    run.status = 'REJECTED';
    run.failure = { code: 'IMPORT_DELETE_LIMIT_EXCEEDED', message: 'The set would delete too many identities' };
    return;
  }
  run.status = 'COMPLETED';
  run.counts = counts;
  if (!run.dryRun) {
    held.clear();
    for (const [id, json] of next) held.set(id, json);
  }
}

export async function startFakeStagedService(): Promise<FakeStagedService> {
  const tokens = new Map<string, number>();
  const fake: FakeStagedService = {
    url: '',
    maxIdentitiesPerPart: 2_000,
    tokenLifetimeS: 3600,
    looksPerRun: 3,
    tokensIssued: 0,
    expiredTokenUses: 0,
    partsReceived: [],
    associations: [],
    operations: [],
    imports: new Map(),
    runs: new Map(),
    sources: new Map(),
    faults: {},
    close: () => Promise.resolve(),
  };
  const held = (source: string) => {
    let map = fake.sources.get(source);
    if (!map) fake.sources.set(source, (map = new Map()));
    return map;
  };

  const handleGraphql = (body: { query: string; variables: Record<string, unknown> }, bytes: number): unknown => {
    const op =
      /\b(startImport|addImportPart|completeImport|stagedImport|importRun|associateBusinessIdentities|importBusinessIdentities)\b/.exec(
        body.query,
      )?.[1];
    fake.operations.push(op ?? 'unknown');
    const input = (body.variables.i ?? {}) as Record<string, unknown>;
    switch (op) {
      case 'startImport': {
        const running = fake.faults.inProgressAtStart;
        if (running !== undefined) {
          delete fake.faults.inProgressAtStart;
          return graphqlError('IMPORT_IN_PROGRESS', 'Another import of this source is running', { runId: running });
        }
        const importId = randomUUID();
        fake.imports.set(importId, {
          importId,
          source: String(input.source),
          dryRun: input.dryRun === true,
          ...(typeof input.maxDeletedRatio === 'number' ? { maxDeletedRatio: input.maxDeletedRatio } : {}),
          parts: new Map(),
        });
        return graphqlAnswer({
          startImport: {
            importId,
            maxIdentitiesPerPart: fake.maxIdentitiesPerPart,
            expiresAt: new Date(Date.now() + 3600_000).toISOString(),
          },
        });
      }
      case 'addImportPart': {
        const staged = fake.imports.get(String(input.importId));
        if (!staged || staged.runId) return graphqlError('IMPORT_NOT_FOUND', 'No such import');
        const sequence = Number(input.sequence);
        const identities = input.identities as Identity[];
        if (identities.length > fake.maxIdentitiesPerPart) return graphqlError('IMPORT_PART_TOO_LARGE', 'Too many');
        if (fake.faults.busyOnPart === sequence) {
          delete fake.faults.busyOnPart;
          return graphqlError('SERVICE_BUSY', 'The service is busy; retry later', { retryAfterSeconds: 1 });
        }
        const bad = fake.faults.badInputOnPart;
        if (bad?.sequence === sequence) {
          delete fake.faults.badInputOnPart;
          return graphqlError('BAD_USER_INPUT', 'The input is not valid', {
            problems: [{ index: bad.index, field: 'firstName', problem: 'must not be empty' }],
          });
        }
        const before = staged.parts.get(sequence);
        if (before && JSON.stringify(before) !== JSON.stringify(identities))
          return graphqlError('IMPORT_PART_CONFLICT', 'Another part under that sequence');
        staged.parts.set(sequence, identities);
        fake.partsReceived.push({
          importId: staged.importId,
          sequence,
          identities: identities.length,
          bodyBytes: bytes,
        });
        fake.onPart?.(sequence, staged.importId);
        const all = [...staged.parts.values()];
        return graphqlAnswer({
          addImportPart: {
            importId: staged.importId,
            sequence,
            identities: identities.length,
            partsReceived: all.length,
            identitiesReceived: all.reduce((n, p) => n + p.length, 0),
          },
        });
      }
      case 'completeImport': {
        const staged = fake.imports.get(String(input.importId));
        if (!staged || staged.runId) return graphqlError('IMPORT_NOT_FOUND', 'No such import');
        const forget = fake.faults.forgetPartAtCompletion;
        if (forget !== undefined) {
          delete fake.faults.forgetPartAtCompletion;
          staged.parts.delete(forget);
        }
        const max = Math.max(0, ...staged.parts.keys());
        const missing = Array.from({ length: max }, (_, i) => i + 1).filter((s) => !staged.parts.has(s));
        if (forget !== undefined && !missing.includes(forget)) missing.push(forget);
        if (missing.length) return graphqlError('IMPORT_PARTS_MISSING', 'Parts are missing', { missing });
        const id = randomUUID();
        staged.runId = id;
        fake.runs.set(id, {
          id,
          status: 'QUEUED',
          source: staged.source,
          dryRun: staged.dryRun,
          ...(staged.maxDeletedRatio !== undefined ? { maxDeletedRatio: staged.maxDeletedRatio } : {}),
          identities: [...staged.parts.entries()].sort(([a], [b]) => a - b).flatMap(([, p]) => p),
          looks: 0,
        });
        return graphqlAnswer({ completeImport: { importId: staged.importId, runId: id, status: 'QUEUED' } });
      }
      case 'stagedImport': {
        const staged = fake.imports.get(String(body.variables.id));
        return graphqlAnswer({
          stagedImport: staged
            ? {
                importId: staged.importId,
                source: staged.source,
                sequences: [...staged.parts.keys()].sort((a, b) => a - b),
                identitiesReceived: [...staged.parts.values()].reduce((n, p) => n + p.length, 0),
                expiresAt: new Date(Date.now() + 3600_000).toISOString(),
                runId: staged.runId ?? null,
              }
            : null,
        });
      }
      case 'importRun': {
        const run = fake.runs.get(String(body.variables.id));
        if (!run) return graphqlAnswer({ importRun: null });
        run.looks++;
        const total = run.identities.length;
        if (run.status === 'QUEUED' && run.looks > 1) run.status = 'RUNNING';
        if (run.status === 'RUNNING' && run.looks >= fake.looksPerRun) apply(run, held(run.source));
        const applied =
          run.status === 'COMPLETED'
            ? total
            : run.status === 'RUNNING'
              ? Math.floor((total * run.looks) / fake.looksPerRun)
              : 0;
        return graphqlAnswer({
          importRun: {
            id: run.id,
            operation: 'IMPORT',
            status: run.status,
            clientId: 'client',
            correlationId: 'c',
            progress: { applied, total },
            importCounts: run.counts ?? null,
            associationCounts: null,
            failure: run.failure ?? null,
          },
        });
      }
      case 'associateBusinessIdentities': {
        const pairs = input.associations as Array<{ externalId: string; userPrincipalName: string }>;
        fake.associations.push({ pairs: pairs.length, bodyBytes: bytes });
        const known = held(String(input.source));
        const unknown = pairs.filter((p) => !known.has(p.externalId)).map((p) => p.externalId);
        return graphqlAnswer({
          associateBusinessIdentities: {
            associated: pairs.length - unknown.length,
            unchanged: 0,
            unknownExternalIds: unknown,
            unknownUserPrincipalNames: [],
            conflictingUserPrincipalNames: [],
          },
        });
      }
      default:
        return graphqlError('GRAPHQL_VALIDATION_FAILED', 'Unknown operation');
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.url?.endsWith('/oauth2/v2.0/token')) {
        const token = `token-${++fake.tokensIssued}`;
        tokens.set(token, Date.now() + fake.tokenLifetimeS * 1000);
        return send(200, { token_type: 'Bearer', expires_in: fake.tokenLifetimeS, access_token: token });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
      const expiresAt = tokens.get(token);
      if (expiresAt === undefined || Date.now() >= expiresAt) {
        if (expiresAt !== undefined) fake.expiredTokenUses++;
        return send(200, graphqlError('AUTH_NOT_AUTHENTICATED', 'Not authenticated'));
      }
      const body = JSON.parse(raw.toString('utf8')) as { query: string; variables: Record<string, unknown> };
      const sequence = (body.variables.i as { sequence?: number } | undefined)?.sequence;
      if (/\baddImportPart\b/.test(body.query) && fake.faults.dropOnPart === sequence) {
        delete fake.faults.dropOnPart;
        req.socket.destroy();
        return;
      }
      send(200, handleGraphql(body, raw.length));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
