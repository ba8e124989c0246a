/**
 * The reference client's staged import against the real service (the in-process stack): a set larger than
 * one part is uploaded in parts, `run <id>` is printed once the service accepted it, the run is followed to
 * its end (or not, with --no-wait), an interrupted upload resumes without sending the parts the service
 * holds, and a re-run writes no identity. (The client's logic against a stand-in of the contract:
 * tests/unit/scripts/importClient.staged.test.ts.)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../support/stack';
import { DEV_CLIENTS, DEV_TENANT_ID, SERVICE_SCOPE } from '../../devhost/devData';
import { importCli, resultLines, runImport, type ImportRun } from '../../scripts/importClient';
import { plainMeter } from '../../scripts/importClient/progress';
import { services } from '../../lib/services';
import { partitionKey } from '../../lib/identities/model';
import { customSourceKey } from '../../lib/imports/importer';

const IDENTITIES = 3_000;
const PART_SIZE = 500;

describe('import client: staged import against the service', () => {
  let stack: TestStack;
  let dir: string;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'import-staged-'));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await stack?.stop();
  });

  const people = (name: string, n: number) => {
    const file = path.join(dir, name);
    fs.writeFileSync(
      file,
      [
        'externalId,affiliationType,firstName,lastName,birthDate',
        ...Array.from({ length: n }, (_, i) => `S${i},employment,First${i},Last${i},1990-01-01`),
      ].join('\n'),
    );
    return file;
  };
  const progress: string[] = [];
  const run = async (source: string, file: string, extra: Partial<ImportRun> = {}) => {
    const out: string[] = [];
    const result = await runImport({
      service: stack.base,
      source,
      file,
      tenant: DEV_TENANT_ID,
      clientId: DEV_CLIENTS.admin.clientId,
      secret: DEV_CLIENTS.admin.secret,
      authority: stack.idp.url,
      scope: SERVICE_SCOPE,
      partSize: PART_SIZE,
      pollMs: 100,
      progress: (l) => progress.push(l),
      onRun: (id) => out.push(`run ${id}`),
      ...extra,
    });
    return { result, out: [...out, ...resultLines(result)] };
  };
  const cli = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await importCli(
      [
        '--service',
        stack.base,
        '--authority',
        stack.idp.url,
        '--tenant',
        DEV_TENANT_ID,
        '--client-id',
        DEV_CLIENTS.admin.clientId,
        '--client-secret-env',
        'ADMIN_SECRET',
        '--scope',
        SERVICE_SCOPE,
        '--part-size',
        String(PART_SIZE),
        ...argv,
      ],
      { ADMIN_SECRET: DEV_CLIENTS.admin.secret },
      { out: (l) => out.push(l), err: (l) => err.push(l), progress: (l) => progress.push(l) },
    );
    return { code, out, err: err.join('\n') };
  };
  /** Each identity of the source and its entity tag (a write changes it). */
  const etags = async (source: string) => {
    const pk = partitionKey(DEV_TENANT_ID, customSourceKey(source));
    const items = await services()
      .store.collection<{ id: string; pk: string }>('identities')
      .queryAll<{ id: string; _etag: string }>(
        { query: 'SELECT c.id, c._etag FROM c WHERE c.pk = @pk', parameters: [{ name: '@pk', value: pk }] },
        { partitionKey: pk },
      );
    return new Map(items.map((i) => [i.id, i._etag]));
  };
  const runOf = (runId: string) => services().runs.get(DEV_TENANT_ID, runId);

  it('uploads the set in parts, prints the run id before the counts, follows the run; a re-run writes nothing', async () => {
    const file = people('staged.csv', IDENTITIES);
    progress.length = 0;
    const { result, out } = await run('Staged', file);
    expect(result.staged).toEqual({
      parts: IDENTITIES / PART_SIZE,
      partsSent: IDENTITIES / PART_SIZE,
      partsResumed: 0,
    });
    expect(out).toEqual([
      `run ${result.importRunId}`,
      `import ${JSON.stringify({ created: IDENTITIES, updated: 0, deleted: 0, unchanged: 0 })}`,
    ]);
    expect(progress).toContain(`uploaded ${IDENTITIES} of ${IDENTITIES} identities (100%)`);
    expect(progress.join('\n')).not.toMatch(/First\d|Last\d/);
    expect(await runOf(result.importRunId)).toMatchObject({
      status: 'completed',
      importCounts: { created: IDENTITIES, updated: 0, deleted: 0, unchanged: 0 },
    });

    const before = await etags('Staged');
    expect(before.size).toBe(IDENTITIES);
    const again = await run('Staged', file);
    expect(again.result.import).toEqual({ created: 0, updated: 0, deleted: 0, unchanged: IDENTITIES });
    expect(await etags('Staged')).toEqual(before);
  });

  it('--no-wait prints the run id once the service accepted the set, and the run completes without the client', async () => {
    const r = await cli(['--source', 'NoWait', '--file', people('nowait.csv', IDENTITIES), '--no-wait']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toEqual([expect.stringMatching(/^run \S+$/)]);
    const runId = r.out[0]!.slice('run '.length);
    const deadline = Date.now() + 60_000;
    while ((await runOf(runId))?.status !== 'completed' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await runOf(runId)).toMatchObject({
      status: 'completed',
      importCounts: { created: IDENTITIES, updated: 0, deleted: 0, unchanged: 0 },
    });
  });

  it('resumes an interrupted upload without sending again the parts the service holds', async () => {
    const file = people('resumed.csv', IDENTITIES);
    const interrupt = new AbortController();
    const lines: string[] = [];
    const meter = plainMeter((l) => lines.push(l));
    const stopping = {
      ...meter,
      update: (label: string, done: number, total: number) => {
        meter.update(label, done, total);
        if (label === 'uploaded' && done >= 2 * PART_SIZE) interrupt.abort();
      },
    };
    await expect(run('Resumed', file, { meter: stopping, signal: interrupt.signal })).rejects.toThrow(
      /^interrupted after \d+ of 6 parts were uploaded; run the same command again to resume the upload$/,
    );
    expect(await etags('Resumed')).toEqual(new Map());

    progress.length = 0;
    const { result } = await run('Resumed', file);
    const held = result.staged?.partsResumed ?? 0;
    expect(held).toBeGreaterThanOrEqual(2);
    expect(progress).toContain(`resuming the upload: the service holds ${held} of 6 parts`);
    expect(result.staged).toEqual({ parts: 6, partsSent: 6 - held, partsResumed: held });
    expect(result.import).toEqual({ created: IDENTITIES, updated: 0, deleted: 0, unchanged: 0 });
  });
});
