/** The engine's folder from before journal rotation (a snapshot without header, `journal.jsonl`) still loads, and moves to the rotated layout. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Engine, storeOf } from '../../../../devhost/cosmos/engine';

describe('journal layout', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'journal-layout-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const ids = (engine: Engine) => {
    const store = storeOf(engine.account.database('db').collection('items'));
    return [...(store?.partitions.values() ?? [])].flatMap((p) => [...p.docs.keys()]).sort();
  };

  it('loads a snapshot without header and journal.jsonl, compacts them, and loads the result again', () => {
    const first = new Engine('127.0.0.1', 0);
    first.persistTo(dir);
    first.account.databases.create({ id: 'db' });
    first.account.database('db').collections.create({ id: 'items', partitionKey: { paths: ['/pk'] } });
    const store = storeOf(first.account.database('db').collection('items'))!;
    for (let i = 0; i < 5; i++) store.create({ id: `i${i}`, pk: 'p' });
    first.close();
    // the layout an older engine left: its snapshot, then a journal with a later delete
    fs.renameSync(path.join(dir, 'journal.jsonl'), path.join(dir, 'snapshot.jsonl'));
    const putOfI0 = fs
      .readFileSync(path.join(dir, 'snapshot.jsonl'), 'utf8')
      .split('\n')
      .find((l) => l.includes('"id":"i0"'));
    fs.writeFileSync(
      path.join(dir, 'journal.jsonl'),
      `${`${putOfI0}\n`.repeat(5)}${JSON.stringify({ t: 'del', pk: 'p', id: 'i2', db: 'db', coll: 'items' })}\n`,
    );

    const second = new Engine('127.0.0.1', 0);
    expect(second.persistTo(dir).documents).toBe(4);
    expect(ids(second)).toEqual(['i0', 'i1', 'i3', 'i4']);
    second.close();
    expect(fs.readdirSync(dir).sort()).toEqual(['journal.1.jsonl', 'snapshot.jsonl']);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'snapshot.jsonl'), 'utf8').split('\n')[0]!)).toEqual({
      t: 'snap',
      from: 1,
    });

    const third = new Engine('127.0.0.1', 0);
    expect(third.persistTo(dir).documents).toBe(4);
    expect(ids(third)).toEqual(['i0', 'i1', 'i3', 'i4']);
    third.close();
  });
});
