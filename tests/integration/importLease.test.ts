import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID } from '../../devhost/devData';
import { services } from '../../lib/services';
import { RunHistory } from '../../lib/imports/runHistory';
import { acquireImportLease, LEASE_MS, LEASE_RENEW_MS, type LeaseClock } from '../../lib/imports/importLease';
import { customSourceKey } from '../../lib/imports/importer';
import { partitionKey } from '../../lib/identities/model';
import { createLogger } from '../../lib/log/logger';
import { DomainError } from '../../lib/util/domainError';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../../scripts/importClient';
import { atLowPriority } from '../../lib/store/priority';
import { SERVICE_SCOPE } from '../../devhost/devData';

const SECOND = 1000;

describe('import lease with a heartbeat', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => stack?.stop());

  it('a live run keeps its source; after a crash the source takes a new import within a minute and the dead run is marked ABANDONED', async () => {
    const store = services().store;
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Heartbeat'));
    const clock = { t: Date.now() };
    const beats: Array<{ ms: number; stopped: boolean }> = [];
    const leaseClock: LeaseClock = {
      now: () => clock.t,
      every: (ms) => {
        const beat = { ms, stopped: false };
        beats.push(beat);
        return () => void (beat.stopped = true);
      },
    };
    const history = new RunHistory(store, () => clock.t);
    const log = createLogger(() => undefined, {});
    let lease: Awaited<ReturnType<typeof acquireImportLease>> | undefined;
    // The run takes the lease, then its process "dies": the work never ends and nothing renews the lease.
    const runId = await new Promise<string>((started) => {
      void history.record(
        {
          tenantId: DEV_TENANT_ID,
          source: 'Heartbeat',
          operation: 'import',
          clientId: DEV_CLIENTS.admin.clientId,
          correlationId: 'lease-test',
          submitted: 1,
        },
        log,
        async (run) => {
          lease = await acquireImportLease(store, pk, clock.t, run.id, leaseClock);
          started(run.id);
          await new Promise(() => undefined);
        },
        () => ({}),
      );
    });
    expect(beats).toEqual([{ ms: LEASE_RENEW_MS, stopped: false }]);

    // Alive: renewed by its heartbeat, the run keeps the source past the first LEASE_MS.
    clock.t += 45 * SECOND;
    // Renewed at high priority, even from inside the import's low-priority work.
    const lowBefore = stack.cosmosRequestUnits().lowRequests;
    expect(await atLowPriority(async () => lease?.renew())).toBe(true);
    expect(stack.cosmosRequestUnits().lowRequests).toBe(lowBefore);
    clock.t += 45 * SECOND;
    expect((await history.get(DEV_TENANT_ID, runId))?.status).toBe('running');
    const refused = await acquireImportLease(store, pk, clock.t, undefined, leaseClock).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'IMPORT_IN_PROGRESS', details: { runId } });

    // Dead: no renewal for LEASE_MS; the run reads ABANDONED and the next import takes the source.
    clock.t += LEASE_MS - 45 * SECOND + 1;
    expect((await history.get(DEV_TENANT_ID, runId))?.status).toBe('abandoned');
    const next = await acquireImportLease(store, pk, clock.t, undefined, leaseClock);
    const stored = await store
      .collection<{ id: string; pk: string; status: string; failure?: { code: string } }>('imports')
      .read(pk, `run-${runId}`);
    expect(stored).toMatchObject({ status: 'abandoned', failure: { code: 'RUN_ABANDONED' } });
    // The dead run's heartbeat, were it to come back, finds the lease taken and stops.
    expect(await lease?.renew()).toBe(false);
    await next.release();
    expect(beats.every((b) => b.stopped || b === beats[0])).toBe(true);

    // And an import through the service completes on the source.
    const res = await fetch(`${stack.base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await stack.token(DEV_CLIENTS.admin)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($i: ImportBusinessIdentitiesInput!) { importBusinessIdentities(input: $i) { created } }',
        variables: {
          i: {
            source: 'Heartbeat',
            identities: [{ externalId: 'H1', affiliationType: 'EMPLOYMENT', firstName: 'A', lastName: 'B' }],
          },
        },
      }),
    });
    expect(await res.json()).toEqual({ data: { importBusinessIdentities: { created: 1 } } });
  });

  it('a released lease stops its heartbeat', async () => {
    const stops: boolean[] = [];
    const clock: LeaseClock = { now: () => Date.now(), every: () => () => void stops.push(true) };
    const lease = await acquireImportLease(
      services().store,
      partitionKey(DEV_TENANT_ID, customSourceKey('Released')),
      Date.now(),
      undefined,
      clock,
    );
    await lease.release();
    expect(stops).toEqual([true]);
  });
  it('the reference client follows a dead import of its source, sees it ABANDONED once its lease lapses, and imports', async () => {
    const store = services().store;
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey('Crashed'));
    // A run that started more than a minute ago in a process that died: its lease lapses in about a second.
    const history = new RunHistory(store, () => Date.now() - LEASE_MS - SECOND);
    const stillBeating: LeaseClock = { now: () => Date.now(), every: () => () => undefined };
    const deadRunId = await new Promise<string>((started) => {
      void history.record(
        {
          tenantId: DEV_TENANT_ID,
          source: 'Crashed',
          operation: 'import',
          clientId: DEV_CLIENTS.admin.clientId,
          correlationId: 'dead-run',
          submitted: 3,
        },
        createLogger(() => undefined, {}),
        async (run) => {
          await acquireImportLease(store, pk, Date.now() - LEASE_MS + SECOND, run.id, stillBeating);
          started(run.id);
          await new Promise(() => undefined);
        },
        () => ({}),
      );
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lease-'));
    const file = path.join(dir, 'people.csv');
    fs.writeFileSync(
      file,
      ['externalId,affiliationType,firstName,lastName', 'C1,employment,A,B', 'C2,employment,C,D'].join('\n'),
    );
    const progress: string[] = [];
    const result = await runImport({
      service: stack.base,
      source: 'Crashed',
      file,
      tenant: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      secret: DEV_CLIENTS.admin.secret,
      authority: stack.idp.url,
      scope: SERVICE_SCOPE,
      pollMs: 100,
      progress: (l) => progress.push(l),
    });
    expect(progress).toContainEqual(
      expect.stringContaining(`another import of source Crashed is running (run ${deadRunId})`),
    );
    expect(progress).toContainEqual(`run ${deadRunId} ended abandoned; sending the set again`);
    expect(result.import).toEqual({ created: 2, updated: 0, deleted: 0, unchanged: 0 });
    expect((await services().runs.get(DEV_TENANT_ID, deadRunId))?.status).toBe('abandoned');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
