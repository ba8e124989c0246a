/**
 * The local stack with three instances (devhost/fleet.ts), as `npm start -- --instances 3` runs it: three
 * function hosts in processes of their own over one store, queue, identity provider and directory, behind a
 * front that spreads requests over them. SCIM, GraphQL and the console work through the front and every instance
 * serves a share; the timers run on one instance only; kill -9 of that instance loses no acknowledged write, later
 * requests still succeed, and the timers move to a survivor.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { QueueClient } from '@azure/storage-queue';
import { call, startTestFleet, type TestFleet } from '../../support/stack';
import { scim, userBody } from '../../support/scim';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../../devhost/devData';
import { encodeWork } from '../../../lib/background/workQueue';
import { BACKGROUND_QUEUE_NAME } from '../../../lib/triggers/backgroundHandlers';
import { INSTANCE_HEADER } from '../../../devhost/front';

/** The app's host.json with one message per receive and idle polls every 100 ms, so every instance takes part soon. */
const hostJson = (() => {
  const app = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../host.json'), 'utf8')) as {
    extensions: { queues: Record<string, unknown> };
  };
  app.extensions.queues = { ...app.extensions.queues, batchSize: 1, maxPollingInterval: '00:00:00.100' };
  return app;
})();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('the local stack with three instances', () => {
  let fleet: TestFleet;

  beforeAll(async () => {
    fleet = await startTestFleet({
      instances: 3,
      runTimersOnSchedule: true,
      hostJson,
      env: {
        SCIM_RATE_LIMIT_PER_SECOND: '100000',
        SCIM_TENANT_RATE_LIMIT_PER_SECOND: '100000',
        // The retention timer every 2 s (it plans one unit per tenant on the queue, which any instance may take).
        RETENTION_SCHEDULE: '*/2 * * * * *',
        LOG_LEVEL: 'warn',
      },
    });
  }, 180_000);
  afterAll(async () => {
    await fleet?.stop();
  }, 60_000);

  it('runs three instances, each in its own process on its own URL with its own WEBSITE_INSTANCE_ID', async () => {
    const instances = fleet.instances();
    expect(instances.map((i) => i.index)).toEqual([1, 2, 3]);
    expect(new Set(instances.map((i) => i.url)).size).toBe(3);
    expect(new Set(instances.map((i) => i.pid)).size).toBe(3);
    expect(instances.map((i) => i.pid)).not.toContain(process.pid);
    for (const i of instances) expect(i.instanceId).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(instances.map((i) => i.instanceId)).size).toBe(3);
    for (const i of instances) {
      expect(i.url).not.toBe(fleet.host.url);
      expect((await call(`${i.url}/health`)).status).toBe(200);
    }
  });

  it('serves SCIM (create, get, patch, list), GraphQL and the console through the front, spread over all three', async () => {
    const served: string[] = [];
    const seen = (res: { headers: Headers }) => served.push(res.headers.get(INSTANCE_HEADER) ?? 'none');
    const api = scim(fleet, await fleet.token(DEV_CLIENTS.scim));
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const created = await api.create(userBody());
      expect(created.status).toBe(201);
      seen(created);
      ids.push(created.body.id);
    }
    for (const id of ids) {
      const got = await api.get(id);
      expect(got.status).toBe(200);
      seen(got);
      const patched = await api.patch(id, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'name.familyName', value: 'Through the front' }],
      });
      expect(patched.status).toBe(200);
      expect(patched.body.name.familyName).toBe('Through the front');
      seen(patched);
    }
    const listed = await api.list('?count=100');
    expect(listed.status).toBe(200);
    expect(listed.body.Resources.map((r) => r.id)).toEqual(expect.arrayContaining(ids));
    seen(listed);

    const graphql = await call<{ data?: { __typename: string } }>(`${fleet.base}/graphql`, {
      method: 'POST',
      token: await fleet.token(DEV_CLIENTS.admin),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.status).toBe(200);
    expect(graphql.body.data).toEqual({ __typename: 'Query' });
    seen(graphql);

    const page = await call(`${fleet.base}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    seen(page);

    // In turn, with no stickiness: 21 requests, 7 on each instance.
    const counts = served.reduce<Record<string, number>>((m, i) => ((m[i] = (m[i] ?? 0) + 1), m), {});
    expect(counts).toEqual({ '1': 7, '2': 7, '3': 7 });
  });

  it("the front runs in a process of its own: it passes requests on while the fleet's own process is busy", async () => {
    // A client in another process sends a request needing no shared part (no token: 401) every 50 ms for 1.5 s,
    // while this process (the stand-ins, the store) is kept busy for 1 s; in this process, the front would wait.
    const client = spawn(
      process.execPath,
      [
        '-e',
        `(async () => {
          const times = [];
          const end = Date.now() + 1500;
          while (Date.now() < end) {
            const t = Date.now();
            const res = await fetch(process.argv[1] + '/scim/v2/Users');
            await res.arrayBuffer();
            times.push([res.status, Date.now() - t]);
            await new Promise((r) => setTimeout(r, 50));
          }
          process.stdout.write(JSON.stringify(times));
        })();`,
        fleet.base,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    client.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const ended = new Promise<void>((resolve) => client.once('exit', () => resolve()));
    await sleep(250);
    const busyUntil = Date.now() + 1000;
    while (Date.now() < busyUntil) {
      // Busy: this process's event loop does nothing else.
    }
    await ended;
    const times = JSON.parse(out) as Array<[number, number]>;
    expect(times.length).toBeGreaterThan(5);
    expect(times.every(([status]) => status === 401)).toBe(true);
    // Every answer came in far less than the second this process was busy.
    expect(Math.max(...times.map(([, ms]) => ms))).toBeLessThan(500);
  });

  it('every instance takes messages from the background queue (competing consumers)', async () => {
    const queue = new QueueClient(fleet.env.BACKGROUND_QUEUE ?? '', BACKGROUND_QUEUE_NAME);
    const ranOn = () =>
      fleet.logs
        .map((line) => /^instance (\d+): Executing 'backgroundWork'/.exec(line)?.[1])
        .filter((i): i is string => i !== undefined);
    const before = ranOn().length;
    const message = encodeWork({ kind: 'retention', tenantId: DEV_TENANT_ID });
    for (let i = 0; i < 60; i += 10) await Promise.all(Array.from({ length: 10 }, () => queue.sendMessage(message)));
    await fleet.host.queuesIdle();
    const runs = ranOn().slice(before);
    expect(runs.length).toBeGreaterThanOrEqual(60);
    expect(new Set(runs)).toEqual(new Set(['1', '2', '3']));
  });

  it('the timers run on one instance; kill -9 of it loses no acknowledged write, and the timers move to a survivor', async () => {
    const owner = fleet.timerOwner()!;
    expect(owner).toBeDefined();
    await until('three retention runs', () => fleet.timerRuns().filter((r) => r.name === 'retention').length >= 3);
    expect(new Set(fleet.timerRuns().map((r) => r.index))).toEqual(new Set([owner]));

    const api = scim(fleet, await fleet.token(DEV_CLIENTS.scim2));
    const acknowledged: string[] = [];
    const failed: string[] = [];
    let writing = true;
    const writer = async () => {
      while (writing) {
        const res = await api.create(userBody()).catch(() => undefined);
        if (res?.status === 201) acknowledged.push(res.body.id);
        else failed.push(String(res?.status ?? 'connection lost'));
      }
    };
    const writers = Array.from({ length: 4 }, writer);
    await until('writes before the kill', () => acknowledged.length >= 20);
    await fleet.kill(owner);
    const killedAt = Date.now();
    const atKill = acknowledged.length;
    await until('writes after the kill', () => acknowledged.length >= atKill + 20);
    writing = false;
    await Promise.all(writers);

    // Only requests on the killed instance may fail, and only as the front's 502 or a cut connection.
    expect(failed.filter((f) => f !== '502' && f !== 'connection lost')).toEqual([]);
    expect(fleet.instances().find((i) => i.index === owner)?.alive).toBe(false);
    // Later requests through the front all succeed, on the survivors only.
    const served = new Set<string>();
    for (const id of acknowledged) {
      const got = await api.get(id);
      expect(got.status).toBe(200);
      served.add(got.headers.get(INSTANCE_HEADER) ?? 'none');
    }
    expect(served.size).toBe(2);
    expect(served.has(String(owner))).toBe(false);

    // The timers moved to one survivor at once; the killed one runs nothing more.
    const next = fleet.timerOwner()!;
    expect(next).not.toBe(owner);
    expect(fleet.instances().find((i) => i.index === next)?.alive).toBe(true);
    await until('retention runs after the kill', () => fleet.timerRuns().filter((r) => r.at > killedAt).length >= 3);
    const after = fleet.timerRuns().filter((r) => r.at > killedAt);
    expect(new Set(after.map((r) => r.index))).toEqual(new Set([next]));
  }, 180_000);
});
