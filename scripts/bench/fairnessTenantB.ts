/*
 * Tenant B's workloads for bench:fairness, in a process of their own (forked by fairnessBench.ts; it
 * stands for another customer's machines): receives a plan, runs the scenario, sends back one outcome line.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { postJsonNoTimeout } from './harness';
import { largeGraphQLBody, postStreamed } from './streamedPost';

export interface TenantBPlan {
  scenario: 'import' | 'documents' | 'held' | 'forged' | 'scimFlood' | 'importsSide';
  base: string;
  adminToken: string;
  /** The issuer of a tenant with TENANT in place of its id. */
  issuerOf: string;
  /** A key id the identity provider publishes (forged tokens name it or a made-up one). */
  kid: string;
  audience: string;
  identities: number;
  forged: number;
  /** The domain of the directory users the association names (one per run, so each run links new users). */
  upnDomain: string;
  /** scimFlood: one SCIM token per integration flooding, each sent by `sendersPerToken` senders for `seconds`. */
  scimTokens?: string[];
  sendersPerToken?: number;
  seconds?: number;
  /** importsSide: the other tenant's (A's) administrator token, its large imports and their size, B's small one's size. */
  largeTenantToken?: string;
  largeImports?: number;
  largeIdentities?: number;
  smallIdentities?: number;
}

/** What importsSide measured: B's small import alone and during A's large ones, and how A's ended. */
export interface ImportsSideOutcome {
  /** B's small import alone, each time (seconds from startImport to its run seen COMPLETED). */
  aloneSeconds: number[];
  /** B's small import while A's large ones run, each time (as many times as alone). */
  duringSeconds: number[];
  bStatuses: string[];
  /** A's large imports: when each was seen ended, in seconds after B's import during them began, and how. */
  aEndedAfter: number[];
  aStatuses: string[];
  /** Whether all of A's large jobs were still queued or running when B's import during them ended. */
  aRunningThroughout: boolean;
  codes: string;
}

/** What a SCIM flood got: answers by status, and answers per second of the flood by status. */
export interface FloodOutcome {
  statuses: Record<string, number>;
  /** perSecond[s][status]: answers received in second s of the flood. */
  perSecond: Array<Record<string, number>>;
  seconds: number;
}

/** Identities per staged part (the contract's default maxIdentitiesPerPart). */
const PART = 2_000;
/** Pairs associated (the first ones imported), and pairs per association request. */
export const ASSOCIATED = 100_000;
const ASSOCIATION_CHUNK = 5_000;
const MB = 1024 * 1024;
const SECONDS = 10;
const FORGERS = 200;
/** How often a staged import's run is read while it is applied. */
const POLL_MS = 2_000;

type Gql = {
  data?: Record<string, unknown> | null;
  errors?: Array<{ extensions?: { code?: string; retryAfterSeconds?: number } }>;
};

const codeCounts = (codes: string[]) =>
  Object.entries(codes.reduce<Record<string, number>>((m, c) => ((m[c] = (m[c] ?? 0) + 1), m), {}))
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');

const codesOf = (body: Gql) => (body.errors ?? []).map((e) => e.extensions?.code ?? '?');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function gql(plan: TenantBPlan, query: string, variables?: unknown): Promise<Gql> {
  return (await postJsonNoTimeout(`${plan.base}/graphql`, plan.adminToken, { query, variables })).json as Gql;
}

/** How a staged import is sent: how many identities, how often its run is read, and who is told it was committed. */
interface ImportOptions {
  identities: number;
  /** The wait before the n-th read of the run (from 0). */
  pollMs: (n: number) => number;
  committed?: () => void;
}

/** As the reference client sends: a request answered SERVICE_BUSY goes again after the wait it names. */
async function gqlPatient(plan: TenantBPlan, query: string, variables: unknown, codes: string[]): Promise<Gql> {
  for (let tries = 1; ; tries++) {
    const r = await gql(plan, query, variables);
    const busy = r.errors?.find((e) => e.extensions?.code === 'SERVICE_BUSY');
    if (!busy || tries >= 100) {
      codes.push(...codesOf(r));
      return r;
    }
    codes.push('SERVICE_BUSY (sent again)');
    await sleep((busy.extensions?.retryAfterSeconds ?? 1) * 1000);
  }
}

/**
 * A staged import (docs: startImport, parts of at most PART identities, completeImport), then its run read
 * until it is applied: the created count and the run's final status.
 */
async function stagedImport(
  plan: TenantBPlan,
  source: string,
  codes: string[],
  options: ImportOptions = { identities: plan.identities, pollMs: () => POLL_MS },
): Promise<{ created: number; status: string }> {
  const started = await gqlPatient(
    plan,
    'mutation($i: StartImportInput!) { startImport(input: $i) { importId maxIdentitiesPerPart } }',
    { i: { source } },
    codes,
  );
  const start = started.data?.startImport as { importId: string; maxIdentitiesPerPart: number } | undefined;
  if (!start) return { created: 0, status: 'not started' };
  const part = Math.min(PART, start.maxIdentitiesPerPart);
  for (let from = 0, sequence = 1; from < options.identities; from += part, sequence++) {
    const identities = Array.from({ length: Math.min(part, options.identities - from) }, (_, i) => ({
      externalId: `b-${from + i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'Bulk',
      lastName: `B${from + i}`,
    }));
    const added = await gqlPatient(
      plan,
      'mutation($i: AddImportPartInput!) { addImportPart(input: $i) { identitiesReceived } }',
      { i: { importId: start.importId, sequence, identities } },
      codes,
    );
    if (!added.data?.addImportPart) return { created: 0, status: `part ${sequence} refused` };
  }
  const completed = await gqlPatient(
    plan,
    'mutation($i: CompleteImportInput!) { completeImport(input: $i) { runId status } }',
    { i: { importId: start.importId } },
    codes,
  );
  const runId = (completed.data?.completeImport as { runId?: string } | undefined)?.runId;
  if (!runId) return { created: 0, status: 'not completed' };
  options.committed?.();
  for (let n = 0; ; n++) {
    const r = await gql(plan, 'query($id: ID!) { importRun(id: $id) { status importCounts { created } } }', {
      id: runId,
    });
    const run = r.data?.importRun as { status: string; importCounts?: { created: number } | null } | undefined;
    const busy = r.errors?.find((e) => e.extensions?.code === 'SERVICE_BUSY');
    if (!run && busy) {
      codes.push('SERVICE_BUSY (read again)');
      await sleep((busy.extensions?.retryAfterSeconds ?? 1) * 1000);
      continue;
    }
    if (!run) {
      codes.push(...codesOf(r));
      return { created: 0, status: 'run not found' };
    }
    if (run.status !== 'QUEUED' && run.status !== 'RUNNING')
      return { created: run.importCounts?.created ?? 0, status: run.status };
    await sleep(options.pollMs(n));
  }
}

/**
 * Reads of a small import's run: every 20 ms for its first second (its time alone is a fraction of a second),
 * then every 100 ms, then every 500 ms: within the tenant's GraphQL budget and its burst.
 */
const SMALL_POLL = (n: number) => (n < 50 ? 20 : n < 100 ? 100 : 500);
/** B's small import is timed this many times alone, and as many while A's large ones run (medians compared). */
const ALONE_RUNS = 3;

/**
 * (e): tenant B's small staged import alone, then while tenant A (`largeTenantToken`) runs `largeImports` large
 * staged imports of its own at once (each of another source, all committed first), then A's are waited for.
 */
async function importsSide(plan: TenantBPlan): Promise<string> {
  const codes: string[] = [];
  const small = plan.smallIdentities ?? 5;
  const stamp = Date.now();
  const timed = async (source: string): Promise<{ seconds: number; status: string }> => {
    const started = performance.now();
    const { status } = await stagedImport(plan, source, codes, { identities: small, pollMs: SMALL_POLL });
    return { seconds: (performance.now() - started) / 1000, status };
  };
  const aloneSeconds: number[] = [];
  const bStatuses: string[] = [];
  for (let i = 0; i < ALONE_RUNS; i++) {
    const alone = await timed(`FairE-B-${stamp}-alone-${i}`);
    aloneSeconds.push(alone.seconds);
    bStatuses.push(alone.status);
  }

  const a: TenantBPlan = { ...plan, adminToken: plan.largeTenantToken ?? plan.adminToken };
  const count = plan.largeImports ?? 4;
  let committed = 0;
  let allCommitted: () => void = () => undefined;
  const committedAll = new Promise<void>((r) => (allCommitted = r));
  let duringStarted = 0;
  let bDone = false;
  let aRunningThroughout = true;
  const aEndedAfter: number[] = [];
  const aStatuses: string[] = [];
  const large = Array.from({ length: count }, async (_, k) => {
    const { status } = await stagedImport(a, `FairE-A-${stamp}-${k}`, codes, {
      identities: plan.largeIdentities ?? 8_000,
      pollMs: () => 500,
      committed: () => {
        if (++committed === count) allCommitted();
      },
    });
    if (!bDone) aRunningThroughout = false;
    aEndedAfter.push(duringStarted ? (performance.now() - duringStarted) / 1000 : 0);
    aStatuses.push(status);
  });
  // Every one of A's jobs is on the queue, and the instances have begun taking their steps.
  await Promise.race([committedAll, Promise.all(large)]);
  await sleep(2_000);
  duringStarted = performance.now();
  const duringSeconds: number[] = [];
  for (let i = 0; i < ALONE_RUNS; i++) {
    const during = await timed(`FairE-B-${stamp}-during-${i}`);
    duringSeconds.push(during.seconds);
    bStatuses.push(during.status);
  }
  bDone = true;
  await Promise.all(large);
  const outcome: ImportsSideOutcome = {
    aloneSeconds,
    duringSeconds,
    bStatuses,
    aEndedAfter: aEndedAfter.sort((x, y) => x - y),
    aStatuses,
    aRunningThroughout,
    codes: codeCounts(codes),
  };
  return JSON.stringify(outcome);
}

/** A large staged import and the association of its first ASSOCIATED identities, in bounded requests. */
async function importAndAssociate(plan: TenantBPlan): Promise<string> {
  const source = `FairB${Date.now()}`;
  const codes: string[] = [];
  const { created, status } = await stagedImport(plan, source, codes);
  const pairs = Math.min(plan.identities, ASSOCIATED);
  let associated = 0;
  for (let from = 0; status === 'COMPLETED' && from < pairs; from += ASSOCIATION_CHUNK) {
    const associations = Array.from({ length: Math.min(ASSOCIATION_CHUNK, pairs - from) }, (_, i) => ({
      externalId: `b-${from + i}`,
      userPrincipalName: `b${from + i}@${plan.upnDomain}`,
    }));
    const r = await gqlPatient(
      plan,
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }',
      { i: { source, associations } },
      codes,
    );
    associated += (r.data?.associateBusinessIdentities as { associated?: number } | undefined)?.associated ?? 0;
  }
  return `staged import ${status}: created ${created}, associated ${associated}${codes.length ? `, errors: ${codeCounts(codes)}` : ''}`;
}

/** 8 MB documents, 20 aliased associations and 6,000-token documents, four senders for SECONDS. */
async function documents(plan: TenantBPlan): Promise<string> {
  const codes: string[] = [];
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${plan.adminToken}` };
  const aliased = `mutation { ${Array.from(
    { length: 20 },
    (_, i) =>
      `a${i}: associateBusinessIdentities(input: { source: "X", associations: [{ externalId: "e", userPrincipalName: "u@b.example.com" }] }) { associated }`,
  ).join(' ')} }`;
  const typenames = `{ ${'__typename '.repeat(6000)}}`;
  const until = performance.now() + SECONDS * 1000;
  let salt = 0;
  const sender = async () => {
    while (performance.now() < until) {
      const kind = salt++ % 3;
      if (kind === 0) {
        const answer = await postStreamed(`${plan.base}/graphql`, headers, 8 * MB, largeGraphQLBody(8 * MB, salt));
        codes.push(...codesOf(JSON.parse(answer.text) as Gql));
      } else codes.push(...codesOf(await gql(plan, kind === 1 ? aliased : typenames)));
    }
  };
  await Promise.all(Array.from({ length: 4 }, sender));
  return codeCounts(codes);
}

/** A GraphQL POST that declares 1,000 bytes and sends none; its answer's status (0 when the connection failed). */
function holdBody(plan: TenantBPlan): Promise<number> {
  const url = new URL(plan.base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    let text = '';
    const done = () => {
      socket.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0));
    };
    socket.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (text.includes('\r\n\r\n')) done();
    });
    socket.on('error', done);
    socket.on('close', done);
    socket.write(
      `POST /graphql HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${plan.adminToken}\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n`,
    );
  });
}

/** 60 bodies held open for SECONDS: each answered one is sent again (after 1 s when refused at once). */
async function held(plan: TenantBPlan): Promise<string> {
  const answers: string[] = [];
  const until = performance.now() + SECONDS * 1000;
  const holder = async () => {
    while (performance.now() < until) {
      const status = await holdBody(plan);
      answers.push(status === 200 ? 'SERVICE_BUSY' : String(status));
      if (status === 200) await new Promise((r) => setTimeout(r, 1000));
    }
  };
  await Promise.all(Array.from({ length: 60 }, holder));
  return codeCounts(answers);
}

/**
 * Forged tokens (another key; the published key id or a made-up one) of random tenants, FORGERS at a time,
 * each sent as soon as the one before is answered.
 */
async function forged(plan: TenantBPlan): Promise<string> {
  const statuses: string[] = [];
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  let sent = 0;
  const sender = async () => {
    while (sent < plan.forged) {
      sent++;
      const tid = randomUUID();
      const now = Math.floor(Date.now() / 1000);
      // A well-formed RS256 token whose signature is 256 random bytes: what a forger without the key sends, and
      // no signing work on this shared machine (the attacker's machines are its own).
      const header = { alg: 'RS256', typ: 'JWT', kid: sent % 2 ? plan.kid : randomUUID() };
      const claims = {
        iss: plan.issuerOf.replace('TENANT', tid),
        aud: plan.audience,
        tid,
        azp: randomUUID(),
        idtyp: 'app',
        iat: now,
        nbf: now,
        exp: now + 3600,
      };
      const token = `${part(header)}.${part(claims)}.${randomBytes(256).toString('base64url')}`;
      const res = await fetch(`${plan.base}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      statuses.push(String(res.status));
    }
  };
  await Promise.all(Array.from({ length: FORGERS }, sender));
  return codeCounts(statuses);
}

/**
 * A SCIM flood: for each token (an integration of tenant B), `sendersPerToken` senders send a cheap read
 * (`filter=externalId eq`, answered 200 when admitted) as soon as the one before is answered, for `seconds`.
 * The outcome is JSON (FloodOutcome).
 */
async function scimFlood(plan: TenantBPlan): Promise<string> {
  const seconds = plan.seconds ?? SECONDS;
  const outcome: FloodOutcome = { statuses: {}, perSecond: Array.from({ length: seconds }, () => ({})), seconds };
  const started = performance.now();
  const until = started + seconds * 1000;
  const query = `/scim/v2/Users?filter=${encodeURIComponent('externalId eq "flood"')}`;
  const sender = async (token: string) => {
    while (performance.now() < until) {
      let status = 'connection failed';
      try {
        const res = await fetch(`${plan.base}${query}`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        status = String(res.status);
      } catch {
        await sleep(10);
      }
      const second = Math.floor((performance.now() - started) / 1000);
      if (second >= seconds) break;
      outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
      const bucket = outcome.perSecond[second]!;
      bucket[status] = (bucket[status] ?? 0) + 1;
    }
  };
  await Promise.all(
    (plan.scimTokens ?? []).flatMap((t) => Array.from({ length: plan.sendersPerToken ?? 1 }, () => sender(t))),
  );
  return JSON.stringify(outcome);
}

const SCENARIOS: Record<TenantBPlan['scenario'], (plan: TenantBPlan) => Promise<string>> = {
  import: importAndAssociate,
  documents,
  held,
  forged,
  scimFlood,
  importsSide,
};

if (require.main === module) {
  // Loaded: the benchmark starts its measurement only now (loading is not part of what B does to A).
  process.send?.('ready');
  process.once('message', (plan: TenantBPlan) => {
    SCENARIOS[plan.scenario](plan).then(
      (outcome) => process.send?.(outcome, () => process.exit(0)),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
}
