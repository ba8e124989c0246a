import { MemoryStore } from '../../support/memoryStore';
import { DataKeys, FIELD_KEY_DOC_ID, TenantKeyForgottenError } from '../../../lib/crypto/dataKeys';
import { TestWrapper } from '../../support/testKeyWrapper';

const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';

describe('data keys (one per tenant, wrapped, in the store)', () => {
  let memory: MemoryStore;
  let wrapper: TestWrapper;
  let now: number;
  const keysOf = () => new DataKeys(memory.store, wrapper, { cacheTtlMs: 1_000, now: () => now });
  beforeEach(() => {
    memory = new MemoryStore();
    wrapper = new TestWrapper();
    now = 1_000_000;
  });

  it('two instances that create a tenant key at once agree on one key', async () => {
    const [k1, k2] = await Promise.all([keysOf().forWriting(A), keysOf().forWriting(A)]);
    expect(k1.keyId).toBe(k2.keyId);
    expect(k1.key.equals(k2.key)).toBe(true);
    const stored = await memory.store.collection('tenants').read(A, FIELD_KEY_DOC_ID);
    expect(JSON.stringify(stored)).not.toContain(k1.key.toString('base64url'));
    expect(JSON.stringify(stored)).not.toContain(k1.key.toString('base64'));
  });

  it('gives each tenant its own key and keeps tenant records out of the tenant list', async () => {
    const keys = keysOf();
    const a = await keys.forWriting(A);
    const b = await keys.forWriting(B);
    expect(a.key.equals(b.key)).toBe(false);
    expect(a.hashKey.equals(a.key)).toBe(false);
    expect(await keys.forReading('cccccccc-3333-4333-8333-333333333333')).toBeUndefined();
  });

  it('a forgotten key is unusable on every instance once its cache time has passed, and never made again', async () => {
    const here = keysOf();
    const there = keysOf();
    await here.forWriting(A);
    expect(await there.forReading(A)).toBeDefined();
    expect(await here.forget(A)).toBe(true);
    expect(await here.forReading(A)).toBeUndefined();
    expect(await there.forReading(A)).toBeDefined();
    now += 1_001;
    expect(await there.forReading(A)).toBeUndefined();
    await expect(there.forWriting(A)).rejects.toThrow(TenantKeyForgottenError);
    expect(await here.forget(A)).toBe(false);
    // A tenant that never had a key can be forgotten too: none is made for it afterwards.
    expect(await here.forget(B)).toBe(false);
    await expect(here.forWriting(B)).rejects.toThrow(TenantKeyForgottenError);
  });

  it('rewraps every key with the current version, keeping the data key; a second run has nothing to do', async () => {
    const keys = keysOf();
    const a = await keys.forWriting(A);
    await keys.forWriting(B);
    wrapper.version = 'v2';
    expect(await keys.rewrapAll()).toEqual({ keys: 2, rewrapped: 2 });
    expect((await keys.record(A))?.wrappedBy).toBe('https://kv.test/keys/k/v2');
    now += 1_001;
    const again = await keysOf().forReading(A);
    expect(again?.key.equals(a.key)).toBe(true);
    expect(await keys.rewrapAll()).toEqual({ keys: 2, rewrapped: 0 });
  });
});
