import crypto from 'node:crypto';
import { isSafeCorrelationId } from '../../../lib/http/request';

describe('isSafeCorrelationId', () => {
  it.each(['job-42.run:7', 'a1b2c3', 'HR_nightly-2026', '0f1e2d3c-4b5a'])('keeps %s', (id) =>
    expect(isSafeCorrelationId(id)).toBe(true),
  );

  it.each([
    ['digits that run across its dashes', '12345678-9012-4345-8678-901234567890'],
    ['upper case', '0F1E2D3C-4B5A-4978-8796-A5B4C3D2E1F0'],
    ['an Entra client-request-id', 'a3f1c7d2-0004-4b8e-9c51-0123456789ab'],
  ])('keeps a canonical UUID with %s', (_what, id) => expect(isSafeCorrelationId(id)).toBe(true));

  it('keeps about every random UUID (about half hold a six-digit run across their dashes)', () => {
    const ids = Array.from({ length: 500 }, () => crypto.randomUUID());
    expect(ids.filter((id) => !isSafeCorrelationId(id))).toEqual([]);
  });

  it.each([
    ['a personal number', '0101901234'],
    ['a dashed one', '010190-1234'],
    ['one written with a dot', '010190.1234'],
    ['one written with an underscore', '010190_1234'],
    ['one written with colons', '01:01:90:12:34'],
    ['a birth date', 'run-01.01.90'],
    ['six digits', 'x123456'],
    ['markup', '<b>'],
    ['a space', 'a b'],
    ['an over-long id', 'a'.repeat(65)],
    ['a UUID with a number where hex goes', '010190-1234-4000-8000-000000000000'],
    ['a UUID with trailing text', '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0-010190-1234'],
    ['nothing', ''],
  ])('refuses %s', (_what, id) => expect(isSafeCorrelationId(id)).toBe(false));
});
