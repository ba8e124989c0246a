import { decodeMessage, parseTimeSpanMs, queueHostSettings } from '../../../devhost/queueTriggers';

describe('queue trigger settings of host.json', () => {
  it('reads time spans as Functions writes them', () => {
    expect(parseTimeSpanMs('00:00:30')).toBe(30_000);
    expect(parseTimeSpanMs('01:02:03')).toBe(3_723_000);
    expect(parseTimeSpanMs('1.00:00:00')).toBe(86_400_000);
    expect(parseTimeSpanMs('00:00:00.2')).toBe(200);
    expect(() => parseTimeSpanMs('30s')).toThrow('hh:mm:ss');
  });

  it('has the Functions host defaults and takes the set values', () => {
    expect(queueHostSettings({})).toEqual({
      batchSize: 16,
      newBatchThreshold: 8,
      maxDequeueCount: 5,
      visibilityTimeoutSeconds: 0,
      maxPollingIntervalMs: 60_000,
      messageEncoding: 'base64',
    });
    expect(
      queueHostSettings({
        extensions: {
          queues: {
            batchSize: 4,
            newBatchThreshold: 1,
            maxDequeueCount: 2,
            visibilityTimeout: '00:01:00',
            maxPollingInterval: '00:00:02',
            messageEncoding: 'none',
          },
        },
      }),
    ).toEqual({
      batchSize: 4,
      newBatchThreshold: 1,
      maxDequeueCount: 2,
      visibilityTimeoutSeconds: 60,
      maxPollingIntervalMs: 2000,
      messageEncoding: 'none',
    });
  });

  it('refuses values the host would refuse', () => {
    expect(() => queueHostSettings({ extensions: { queues: { batchSize: 64 } } })).toThrow('batchSize');
    expect(() => queueHostSettings({ extensions: { queues: { maxDequeueCount: 0 } } })).toThrow('maxDequeueCount');
    expect(() => queueHostSettings({ extensions: { queues: { messageEncoding: 'utf8' } } })).toThrow('messageEncoding');
  });

  it('decodes base64 and parses JSON, else hands over the text', () => {
    expect(decodeMessage(Buffer.from('{"a":1}').toString('base64'), 'base64')).toEqual({ a: 1 });
    expect(decodeMessage(Buffer.from('plain').toString('base64'), 'base64')).toBe('plain');
    expect(decodeMessage('{"a":2}', 'none')).toEqual({ a: 2 });
  });
});
