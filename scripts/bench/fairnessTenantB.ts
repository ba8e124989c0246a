/*
 * Tenant B's workloads for bench:fairness, in a process of their own (forked by fairnessBench.ts; it
 * stands for another customer's machines): receives a plan, runs the scenario, sends back one outcome line.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import jwt from 'jsonwebtoken';
import { postJsonNoTimeout } from './harness';
import { largeGraphQLBody, postStreamed } from './streamedPost';

export interface TenantBPlan {
  scenario: 'import' | 'documents' | 'held' | 'forged';
  base: string;
  adminToken: string;
  /** The issuer of a tenant with TENANT in place of its id. */
  issuerOf: string;
  /** A key id the identity provider publishes (forged tokens name it or a made-up one). */
  kid: string;
  audience: string;
  identities: number;
  forged: number;
}

const IMPORT_CHUNK = 100_000;
const ASSOCIATION_CHUNK = 20_000;
const MB = 1024 * 1024;
const SECONDS = 10;
const FORGERS = 200;

type Gql = { data?: Record<string, unknown>; errors?: Array<{ extensions?: { code?: string } }> };

const codeCounts = (codes: string[]) =>
  Object.entries(codes.reduce<Record<string, number>>((m, c) => ((m[c] = (m[c] ?? 0) + 1), m), {}))
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');

const codesOf = (body: Gql) => (body.errors ?? []).map((e) => e.extensions?.code ?? '?');

async function gql(plan: TenantBPlan, query: string, variables?: unknown): Promise<Gql> {
  return (await postJsonNoTimeout(`${plan.base}/graphql`, plan.adminToken, { query, variables })).json as Gql;
}

/** A large import (in sources of IMPORT_CHUNK) and the association of its first source. */
async function importAndAssociate(plan: TenantBPlan): Promise<string> {
  const source = `FairB${Date.now()}`;
  const codes: string[] = [];
  let created = 0;
  for (let from = 0; from < plan.identities; from += IMPORT_CHUNK) {
    const identities = Array.from({ length: Math.min(IMPORT_CHUNK, plan.identities - from) }, (_, i) => ({
      externalId: `b-${from + i}`,
      affiliationType: 'EMPLOYMENT',
      firstName: 'Bulk',
      lastName: `B${from + i}`,
    }));
    const r = await gql(
      plan,
      'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
      { i: { source: `${source}-${from / IMPORT_CHUNK}`, identities } },
    );
    created += (r.data?.importBusinessIdentities as { created?: number } | undefined)?.created ?? 0;
    codes.push(...codesOf(r));
  }
  const pairs = Math.min(plan.identities, IMPORT_CHUNK);
  let associated = 0;
  for (let from = 0; from < pairs; from += ASSOCIATION_CHUNK) {
    const associations = Array.from({ length: Math.min(ASSOCIATION_CHUNK, pairs - from) }, (_, i) => ({
      externalId: `b-${from + i}`,
      userPrincipalName: `b${from + i}@b.example.com`,
    }));
    const r = await gql(
      plan,
      'mutation($i: AssociateBusinessIdentitiesInput!) { associateBusinessIdentities(input: $i) { associated } }',
      { i: { source: `${source}-0`, associations } },
    );
    associated += (r.data?.associateBusinessIdentities as { associated?: number } | undefined)?.associated ?? 0;
    codes.push(...codesOf(r));
  }
  return `created ${created}, associated ${associated}${codes.length ? `, errors: ${codeCounts(codes)}` : ''}`;
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
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
  const statuses: string[] = [];
  let sent = 0;
  const sender = async () => {
    while (sent < plan.forged) {
      sent++;
      const tid = randomUUID();
      const now = Math.floor(Date.now() / 1000);
      const token = jwt.sign(
        {
          iss: plan.issuerOf.replace('TENANT', tid),
          aud: plan.audience,
          tid,
          azp: randomUUID(),
          idtyp: 'app',
          iat: now,
          nbf: now,
          exp: now + 3600,
        },
        key,
        { algorithm: 'RS256', keyid: sent % 2 ? plan.kid : randomUUID() },
      );
      const res = await fetch(`${plan.base}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      statuses.push(String(res.status));
    }
  };
  await Promise.all(Array.from({ length: FORGERS }, sender));
  return codeCounts(statuses);
}

const SCENARIOS: Record<TenantBPlan['scenario'], (plan: TenantBPlan) => Promise<string>> = {
  import: importAndAssociate,
  documents,
  held,
  forged,
};

if (require.main === module) {
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
