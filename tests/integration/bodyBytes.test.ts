import { request as httpRequest } from 'node:http';
import { startTestStack, call, type TestStack } from '../support/stack';
import { importPeople } from '../support/importSets';
import { DEV_CLIENTS } from '../../devhost/devData';
import { RunFollower } from '../../scripts/runFollower';

type Gql = {
  data?: { importBusinessIdentities?: { created: number } } | null;
  errors?: Array<{ message: string; extensions?: { code?: string; retryAfterSeconds?: number } }>;
};
const IMPORT =
  'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created updated deleted unchanged runId } }';
const importBody = (source: string, n: number) =>
  JSON.stringify({ query: IMPORT, variables: { i: { source, identities: importPeople(source, n) } } });

describe("the instance's bound on GraphQL body bytes held at once", () => {
  let stack: TestStack;
  let token: string;
  beforeAll(async () => {
    stack = await startTestStack({
      env: { GRAPHQL_MAX_BODY_BYTES: '600000', GRAPHQL_BODY_BYTES_IN_FLIGHT: '1000000' },
    });
    token = await stack.token(DEV_CLIENTS.admin);
  });
  afterAll(async () => stack?.stop());

  const send = (body: string) =>
    call<Gql>(`${stack.base}/graphql`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json' },
      body,
    });

  it('refuses a body that would pass it, busy and unread, while another holds its bytes; frees them when answered', async () => {
    const first = importBody('HeldFirst', 5000);
    const second = importBody('Second', 4800);
    expect(first.length).toBeLessThan(600_000);
    expect(first.length + second.length).toBeGreaterThan(1_000_000);
    // The first request declares its length and sends half its body: its bytes are held from its headers on.
    const url = new URL(`${stack.base}/graphql`);
    let finish: () => void = () => undefined;
    const firstAnswer = new Promise<Gql>((resolve, reject) => {
      const req = httpRequest(
        url,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(first),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString('utf8')));
          res.on('end', () => resolve(JSON.parse(text) as Gql));
        },
      );
      req.on('error', reject);
      req.write(first.slice(0, first.length / 2));
      finish = () => req.end(first.slice(first.length / 2));
    });
    await new Promise((r) => setTimeout(r, 300));

    const refused = await send(second);
    expect(refused.status).toBe(200);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'SERVICE_BUSY', retryAfterSeconds: 10 });
    expect(refused.body.data).toBeNull();

    finish();
    expect((await firstAnswer).data?.importBusinessIdentities?.created).toBe(5000);
    // Answered: its bytes are free again.
    expect((await send(second)).body.data?.importBusinessIdentities?.created).toBe(4800);
  });
});

describe('the reference client and a busy service', () => {
  let stack: TestStack;
  beforeAll(async () => {
    // 20 identities a second come back into a budget of 1,200.
    stack = await startTestStack({
      env: { BULK_ITEMS_PER_MINUTE: '1200', IMPORT_MAX_IDENTITIES: '1200', ASSOCIATION_MAX_PAIRS: '1200' },
    });
  });
  afterAll(async () => stack?.stop());

  it('sends an import answered SERVICE_BUSY again after the wait the service asks for', async () => {
    const progress: string[] = [];
    const follower = (source: string, accessToken: string) =>
      new RunFollower({
        service: stack.base,
        accessToken,
        source,
        timeoutMs: 60_000,
        pollMs: 100,
        progress: (l) => progress.push(l),
      });
    const token = await stack.token(DEV_CLIENTS.admin);
    expect((await follower('BusyFirst', token).importSet(importPeople('f', 1100))).counts.created).toBe(1100);
    // 100 left: 300 more wait about 10 s for the budget, and are then imported.
    const second = await follower('BusySecond', token).importSet(importPeople('s', 300));
    expect(second.counts.created).toBe(300);
    expect(progress.filter((l) => /^the service is busy; sending again in \d+ s$/.test(l)).length).toBeGreaterThan(0);
  }, 60_000);
});
