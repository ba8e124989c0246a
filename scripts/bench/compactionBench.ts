/*
 * The local engine compacting its journal while it runs: a container of N documents (BENCH_DOCS,
 * default 100,000) rewritten in full R times (BENCH_ROUNDS, default 20) through the engine's own
 * write path. Prints the largest journal on disk, the compactions, the longest event-loop pause
 * while one runs, and the restart time on the folder afterwards.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Engine, storeOf } from '../../devhost/cosmos/engine';
import { runAndRecord } from './resultFile';

const docs = Number(process.env.BENCH_DOCS ?? 100_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compaction-'));

const journalBytes = () =>
  fs
    .readdirSync(dir)
    .filter((f) => f.startsWith('journal'))
    .reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);

async function main(): Promise<void> {
  let rotatedAt = 0;
  let compactionMs = 0;
  let compactions = 0;
  const engine = new Engine('127.0.0.1', 0);
  engine.persistTo(dir, {
    onStep: (step) => {
      if (step === 'rotated') rotatedAt = performance.now();
      if (step === 'deleted') {
        compactions++;
        compactionMs = Math.max(compactionMs, performance.now() - rotatedAt);
      }
    },
  });
  engine.account.databases.create({ id: 'db' });
  const database = engine.account.database('db');
  database.collections.create({ id: 'identities', partitionKey: { paths: ['/pk'] } });
  const store = storeOf(database.collection('identities'));
  if (!store) throw new Error('no store');
  let maxPause = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    maxPause = Math.max(maxPause, now - last);
    last = now;
  }, 1);
  let maxJournal = 0;
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < docs; i++) {
      store.upsert({
        id: `u${i}`,
        pk: `t${i % 50}`,
        userName: `user${i}@example.test`,
        round,
        attributes: { department: `d${i % 40}`, title: 'Engineer', displayName: `User ${i}` },
      });
      // writes arrive between turns of the event loop, as requests do
      if (i % 500 === 499) {
        await new Promise((r) => setImmediate(r));
        last = performance.now();
      }
    }
    maxJournal = Math.max(maxJournal, journalBytes());
  }
  const writing = performance.now() - started;
  await engine.compacted;
  clearInterval(ticker);
  engine.close();
  const t0 = performance.now();
  const again = new Engine('127.0.0.1', 0);
  const { documents } = again.persistTo(dir);
  const restart = performance.now() - t0;
  again.close();
  const snapshot = fs.statSync(path.join(dir, 'snapshot.jsonl')).size;
  console.log(
    JSON.stringify(
      {
        documents: docs,
        rounds,
        writes: docs * rounds,
        writingSeconds: +(writing / 1000).toFixed(1),
        compactions,
        longestCompactionSeconds: +(compactionMs / 1000).toFixed(2),
        longestEventLoopPauseMs: +maxPause.toFixed(1),
        largestJournalMB: +(maxJournal / 1e6).toFixed(1),
        snapshotMB: +(snapshot / 1e6).toFixed(1),
        journalMBWithoutCompaction: +((snapshot / 1e6) * rounds).toFixed(0),
        restartSeconds: +(restart / 1000).toFixed(2),
        restartDocuments: documents,
      },
      null,
      2,
    ),
  );
  fs.rmSync(dir, { recursive: true, force: true });
}

runAndRecord('compaction', main);
