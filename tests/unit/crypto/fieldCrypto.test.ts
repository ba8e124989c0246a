import { MemoryStore } from '../../support/memoryStore';
import { DataKeys } from '../../../lib/crypto/dataKeys';
import { FieldCrypto, UNREADABLE_VALUE } from '../../../lib/crypto/fieldCrypto';
import { isEnvelope, isKeyedHash } from '../../../lib/crypto/fieldCipher';
import { TestWrapper } from '../../support/testKeyWrapper';

const A = 'aaaaaaaa-1111-4111-8111-111111111111';
const B = 'bbbbbbbb-2222-4222-8222-222222222222';

function identity(tenantId: string, cpr: string, extra: { contentHash?: string } = {}) {
  return {
    id: 'i1',
    pk: `${tenantId}|custom:HR`,
    tenantId,
    personalNumbers: [{ type: 'DkCpr', value: cpr }],
    identityDocumentReferences: [
      { type: 'Passport', issuingCountry: 'DK', documentNumber: 'P1234567' },
      { type: 'Passport', issuingCountry: 'SE' },
    ],
    ...extra,
  };
}

describe('field crypto (the store codec)', () => {
  let memory: MemoryStore;
  let wrapper: TestWrapper;
  let crypto: FieldCrypto;
  beforeEach(() => {
    memory = new MemoryStore();
    wrapper = new TestWrapper();
    crypto = new FieldCrypto(new DataKeys(memory.store, wrapper, { cacheTtlMs: 60_000 }));
  });

  it('seals the numbers of an identity (types and countries readable) and opens them again', async () => {
    const doc = identity(A, '0101904321');
    const stored = await crypto.encode('identities', doc);
    expect(JSON.stringify(stored)).not.toMatch(/0101904321|P1234567/);
    expect(stored.personalNumbers[0]!.type).toBe('DkCpr');
    expect(stored.identityDocumentReferences[0]!.issuingCountry).toBe('DK');
    expect(isEnvelope(stored.personalNumbers[0]!.value)).toBe(true);
    expect(stored.identityDocumentReferences[1]).toEqual(doc.identityDocumentReferences[1]);
    // The caller's document is not changed.
    expect(doc.personalNumbers[0]!.value).toBe('0101904321');
    expect(await crypto.decode('identities', stored)).toEqual(doc);
    // Sealing what is sealed changes nothing.
    expect(await crypto.encode('identities', stored)).toBe(stored);
  });

  it("seals a staged part's identities in the imports container and leaves other documents alone", async () => {
    const part = { id: 'p', pk: `${A}|custom:HR`, kind: 'importPartBody', identities: [identity(A, '0101904321')] };
    const stored = await crypto.encode('imports', part);
    expect(JSON.stringify(stored)).not.toMatch(/0101904321|P1234567/);
    expect(await crypto.decode('imports', stored)).toEqual(part);
    const run = { id: 'r', pk: A, kind: 'run', counts: { created: 1 } };
    expect(await crypto.encode('imports', run)).toBe(run);
    const tenant = { id: A, pk: A, personalNumbers: [{ value: 'x' }] };
    expect(await crypto.encode('tenants', tenant)).toBe(tenant);
  });

  it('reads a plain identity of before as it is, and keys its plain content hash', async () => {
    const plain = identity(A, '0101904321', { contentHash: 'abcdefghijklmnopqrstuv' });
    await crypto.encode('identities', identity(A, '1')); // the tenant has a key
    const read = await crypto.decode('identities', plain);
    expect(read.personalNumbers).toEqual(plain.personalNumbers);
    expect(isKeyedHash(read.contentHash ?? '')).toBe(true);
    const stored = await crypto.encode('identities', plain);
    expect(stored.contentHash).toBe(read.contentHash);
  });

  it("an envelope of another tenant, or without the tenant's key, reads as unreadable; written back it keeps its envelope", async () => {
    const stored = await crypto.encode('identities', identity(A, '0101904321'));
    const moved = { ...stored, tenantId: B, pk: `${B}|custom:HR` };
    await crypto.encode('identities', identity(B, '0202802222'));
    expect((await crypto.decode('identities', moved)).personalNumbers[0]!.value).toBe(UNREADABLE_VALUE);
    await crypto.keys.forget(A);
    const read = await crypto.decode('identities', stored);
    expect(read.personalNumbers).toEqual([{ type: 'DkCpr', value: UNREADABLE_VALUE }]);
    expect(read.identityDocumentReferences[0]!.documentNumber).toBe(UNREADABLE_VALUE);
    const again = await crypto.encode('identities', {
      ...read,
      personalNumbers: read.personalNumbers,
      identityDocumentReferences: [],
    });
    expect(again.personalNumbers[0]!.value).toBe(stored.personalNumbers[0]!.value);
  });

  it('asks Key Vault once per tenant while the key is cached', async () => {
    for (let i = 0; i < 5; i++)
      await crypto.decode('identities', await crypto.encode('identities', identity(A, '0101904321')));
    expect(wrapper.calls).toEqual({ wrap: 1, unwrap: 0 });
  });
});
