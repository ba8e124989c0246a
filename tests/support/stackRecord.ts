import type { StackRecord } from '../../devhost/stackRecord';
import type { TestStack } from './stack';

/** The record `npm start` would write for this stack (by default owned by the test process, so it counts as running). */
export function recordOf(stack: TestStack, pid = process.pid): StackRecord {
  const port = (url: string) => Number(new URL(url).port);
  return {
    pid,
    startedAt: new Date().toISOString(),
    ports: {
      host: port(stack.host.url),
      idp: port(stack.idp.url),
      directory: port(stack.directory.url),
      cosmos: port(stack.cosmosEndpoint),
      queues: port(stack.queueEndpoint),
    },
    urls: {
      host: stack.base,
      idp: stack.idp.url,
      directory: stack.directory.url,
      cosmos: stack.cosmosEndpoint,
      queues: stack.queueEndpoint,
    },
  };
}
