/**
 * A unit of background work over the in-memory store: run in one of the instance's units, or put back on
 * the queue when its tenant gets none now; a staged import's step and a retention unit run as such.
 */
import { runBackgroundWork, PUT_BACK_SECONDS, type WorkDeps } from '../../../lib/background/runWork';
import { FairUnits } from '../../../lib/background/fairUnits';
import { LinkClaims } from '../../../lib/links/claims';
import { Importer } from '../../../lib/imports/importer';
import { RunHistory } from '../../../lib/imports/runHistory';
import { createMemoryStore, type MemoryStore } from '../../support/memoryStore';
import { MemoryDirectory } from '../../support/memoryDirectory';
import { RecordingQueue } from '../../support/recordingQueue';

const TENANT = '11111111-1111-4111-8111-111111111111';
const IMPORT_ID = '0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee';
const importStep = {
  kind: 'import' as const,
  tenantId: TENANT,
  partition: `${TENANT}|src:HR`,
  importId: IMPORT_ID,
  step: 0,
};

let memory: MemoryStore;
let queue: RecordingQueue;
let deps: WorkDeps;

beforeEach(() => {
  memory = createMemoryStore();
  queue = new RecordingQueue();
  const claims = new LinkClaims(memory.store);
  deps = {
    store: memory.store,
    directory: new MemoryDirectory(),
    claims,
    queue,
    backoff: { baseSeconds: 60, maxSeconds: 3600 },
    retentionInactiveDays: 30,
    imports: {
      store: memory.store,
      importer: new Importer(memory.store, claims, undefined),
      runs: new RunHistory(memory.store),
      queue,
    },
  };
});

describe('runBackgroundWork', () => {
  it("runs a staged import's step (here: of a job that is not there) and a retention unit", async () => {
    await expect(runBackgroundWork(deps, importStep)).resolves.toEqual({
      done: 'import',
      result: { outcome: 'missing' },
      continued: false,
    });
    await expect(
      runBackgroundWork(deps, { kind: 'retention', tenantId: TENANT, partition: `${TENANT}|src:HR` }),
    ).resolves.toMatchObject({ done: 'retention', continued: false });
    expect(queue.messages).toEqual([]);
  });

  it('puts the message back on the queue, not run, when its tenant gets no unit now', async () => {
    let release!: () => void;
    const units = new FairUnits(1, 1);
    const holding = units.run(TENANT, () => new Promise<void>((resolve) => (release = resolve)));
    const waiting = runBackgroundWork({ ...deps, units }, importStep);
    // The tenant has one message waiting already: a third is put back at once.
    await expect(runBackgroundWork({ ...deps, units }, importStep)).resolves.toEqual({
      waitingFull: true,
      delaySeconds: PUT_BACK_SECONDS,
    });
    expect(queue.messages).toEqual([{ work: importStep, delaySeconds: PUT_BACK_SECONDS }]);
    release();
    await holding;
    await expect(waiting).resolves.toMatchObject({ done: 'import' });
  });
});
