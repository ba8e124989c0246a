/**
 * GET /activity/export: the activity selection as CSV or JSON lines, authenticated as GraphQL before anything
 * is read, refused with a status and a code (never the value sent), streamed page by page: a 10,000-entry
 * selection goes out with the service's process (one instance of a fleet, apart from the engine and the test)
 * growing its RSS by at most 32 MB. `npm run ops -- activity … --format`
 * writes the same columns and data.
 */
import fs from 'node:fs';
import { startTestFleet, call, type TestFleet } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_APP_ID_URI } from '../../devhost/devData';
import { services } from '../../lib/services';
import { refusalDoc } from '../../lib/activity/refusals';
import { EXPORT_COLUMNS } from '../../lib/activity/export';
import { runOps } from '../../scripts/ops';

const ENTRIES = 10_000;
const MB = 1024 * 1024;

/** The resident set of a process, from /proc (Linux), in bytes. */
function rssOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kb === undefined) throw new Error('no VmRSS');
  return Number(kb) * 1024;
}

describe('activity export', () => {
  let stack: TestFleet;
  let admin: string;
  let integrationId: string;
  const url = (query: string) => `${stack.base}/activity/export?${query}`;

  beforeAll(async () => {
    // The service in a process of its own (one instance behind the front), so its memory is measured apart from
    // the local engine's and the test's.
    stack = await startTestFleet({ instances: 1 });
    admin = await stack.token(DEV_CLIENTS.admin);
    integrationId = (await services().integrations.findByClientId(DEV_TENANT_ID, DEV_CLIENTS.scim2.clientId))!.id;
    // 10,000 refused requests of one integration, one a millisecond apart.
    const col = services().store.collection<{ id: string; pk: string }>('activity');
    const t0 = Date.now() - ENTRIES - 60_000;
    for (let i = 0; i < ENTRIES; i += 200) {
      await Promise.all(
        Array.from({ length: 200 }, (_, j) =>
          col.create(
            refusalDoc(
              {
                tenantId: DEV_TENANT_ID,
                integrationId,
                method: 'POST',
                namedUser: false,
                status: 400,
                scimType: 'invalidValue',
                detail: 'The attribute "name.givenName" is required',
                body: { externalId: `EXP-${i + j}` },
                correlationId: `exp-${i + j}`,
              },
              t0 + i + j,
              30,
            ),
          ),
        ),
      );
    }
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('refuses a caller that is not an administrator before anything, and a bad selection naming the parameter', async () => {
    const none = await call(url('format=csv'));
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ errors: [{ extensions: { code: 'AUTH_NOT_AUTHENTICATED' } }] });
    const noRole = await call(url('format=csv'), { token: await stack.token(DEV_CLIENTS.noRole) });
    expect(noRole.status).toBe(403);
    for (const [query, field] of [
      ['format=xlsx-EVIL', 'format'],
      ['until=tomorrow-EVIL', 'query.until'],
      ['action=smile-EVIL', 'query.action'],
      ['limit=EVIL', 'query'],
    ]) {
      const res = await call(url(query!), { token: admin });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'BAD_USER_INPUT' } }] });
      expect(res.text).toContain(`"field":"${field}"`);
      expect(res.text).not.toContain('EVIL');
    }
    const run = await call(url('run=01900000-0000-7000-8000-000000000000'), { token: admin });
    expect(run.status).toBe(404);
  });

  it(`streams a ${ENTRIES}-entry selection as CSV with the service's RSS growing by at most 32 MB`, async () => {
    const service = stack.instances()[0]!.pid;
    const exportCsv = () =>
      fetch(url(`format=csv&source=${integrationId}&outcome=refused`), {
        headers: { authorization: `Bearer ${admin}` },
      });
    // Once before measuring, so code loaded and compiled on first use is not counted as the export's memory.
    await (await exportCsv()).text();
    const baseline = rssOf(service);
    let peak = baseline;
    const res = await exportCsv();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="activity-.*\.csv"$/);
    expect(res.headers.get('content-length')).toBeNull();
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let lines = 0;
    let first = '';
    let tail = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      peak = Math.max(peak, rssOf(service));
      const text = tail + decoder.decode(value, { stream: true });
      const parts = text.split('\n');
      tail = parts.pop() ?? '';
      if (lines === 0 && parts.length > 0) first = parts[0]!;
      lines += parts.length;
    }
    expect(first).toBe(EXPORT_COLUMNS.join(','));
    expect(lines).toBe(ENTRIES + 1);
    expect(peak - baseline).toBeLessThanOrEqual(32 * MB);
  }, 120_000);

  it('answers a console user, as JSON lines with the same columns', async () => {
    const user = stack.idp.mintUserToken({
      tenantId: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      audience: SERVICE_APP_ID_URI,
      scp: 'Console.Admin',
      roles: ['Admin'],
    });
    const res = await call(url(`format=json&source=${integrationId}&externalId=EXP-7`), { token: user });
    expect(res.status).toBe(200);
    const rows = res.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual([...EXPORT_COLUMNS]);
    expect(rows[0]).toMatchObject({
      source: integrationId,
      action: 'create',
      outcome: 'refused',
      operation: 'POST /Users',
      httpStatus: 400,
      scimType: 'invalidValue',
      externalId: 'EXP-7',
      correlationId: 'exp-7',
      recommendedAction: expect.stringMatching(/^Correct the connector/),
    });
  });

  it('writes the same through npm run ops -- activity --format, line by line, at most the count given', async () => {
    const env = {
      COSMOS_ENDPOINT: stack.env.COSMOS_ENDPOINT,
      COSMOS_KEY: stack.env.COSMOS_KEY,
      COSMOS_DATABASE: stack.env.COSMOS_DATABASE,
    };
    const written: string[] = [];
    const done = await runOps(
      ['activity', DEV_TENANT_ID, integrationId, '--externalId', 'EXP-7', '--format', 'json'],
      env,
      { write: (l) => void written.push(l) },
    );
    expect(done.code).toBe(0);
    const http = await call(url(`format=json&source=${integrationId}&externalId=EXP-7`), { token: admin });
    expect(written).toEqual(http.text.trim().split('\n'));
    const csv: string[] = [];
    await runOps(['activity', DEV_TENANT_ID, integrationId, '250', '--format', 'csv'], env, {
      write: (l) => void csv.push(l),
    });
    expect(csv).toHaveLength(252);
    expect(csv[0]).toBe(EXPORT_COLUMNS.join(','));
    expect(csv[251]).toMatch(/^# export stopped: at 250 entries/);
    expect((await runOps(['activity', DEV_TENANT_ID, integrationId, '--format', 'xml'], env)).code).toBe(2);
  });
});
