import { leaksIn } from '../../support/stack';
import { createLogger } from '../../../lib/log/logger';

describe('log leak check', () => {
  it('flags each kind of sensitive value', () => {
    expect(leaksIn(['{"message":"x","v":"010190-1234"}'])).toHaveLength(1);
    expect(leaksIn(['{"message":"x","v":"0101901234"}'])).toHaveLength(1);
    expect(leaksIn(['user alice@dev.example.com'])).toHaveLength(1);
    expect(leaksIn(['Authorization: Bearer abc'])).toHaveLength(1);
    expect(leaksIn(['dev-scim-secret'])).toHaveLength(1);
    expect(leaksIn(['document DOC-SECRET-1'])).toHaveLength(1);
  });

  it('accepts ordinary structured log lines with ids, timestamps and counts', () => {
    const lines: string[] = [];
    const log = createLogger((_l, line) => lines.push(line), { correlationId: '0193a5f2-7c1e-7a2b-9c3d-123456789012' });
    log.info('import finished', {
      tenantId: '11111111-1111-4111-8111-111111111111',
      created: 100000,
      durationMs: 12345,
    });
    expect(leaksIn(lines)).toEqual([]);
  });

  it('the logger drops fields whose names suggest sensitive content', () => {
    const lines: string[] = [];
    createLogger((_l, line) => lines.push(line)).info('x', {
      personalNumber: '0101901234',
      upn: 'a@b.example',
      token: 'eyJabc',
      count: 3,
    });
    expect(JSON.parse(lines[0]!)).toMatchObject({
      personalNumber: '[redacted]',
      upn: '[redacted]',
      token: '[redacted]',
      count: 3,
    });
  });
});
