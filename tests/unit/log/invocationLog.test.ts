import { invocationLogger, type InvocationLog } from '../../../lib/log/invocationLog';

function context(): InvocationLog & { lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  return {
    functionName: 'backgroundWork',
    lines,
    error: (line) => lines.push(['error', line]),
    warn: (line) => lines.push(['warn', line]),
    info: (line) => lines.push(['info', line]),
    debug: (line) => lines.push(['debug', line]),
  };
}

describe('invocationLogger', () => {
  it("writes each level through the invocation's own method, with the function name and the given fields", () => {
    const ctx = context();
    const log = invocationLogger(ctx, { correlationId: 'c-1' }, 'debug');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(ctx.lines.map(([level]) => level)).toEqual(['debug', 'info', 'warn', 'error']);
    expect(JSON.parse(ctx.lines[1]![1])).toMatchObject({
      message: 'i',
      function: 'backgroundWork',
      correlationId: 'c-1',
    });
  });

  it('drops lines below the level', () => {
    const ctx = context();
    const log = invocationLogger(ctx, { correlationId: 'c-2' }, 'warn');
    log.info('not written');
    log.warn('written');
    expect(ctx.lines.map(([level]) => level)).toEqual(['warn']);
  });
});
