/**
 * The messages between the local fleet (devhost/fleet.ts) and each of its instances (devhost/instance.ts), over
 * the IPC channel of a forked process. Types only: both sides import them, neither imports the other.
 */
import type { HostLog } from './hostLog';

export interface InstanceConfig {
  /** 1-based place of the instance in the fleet (its name in logs and the banner). */
  index: number;
  functions: { dir: string; extension: '.ts' | '.js' };
  hostJson: unknown;
}

/** From the fleet to an instance. */
export type ToInstance =
  | { kind: 'start'; config: InstanceConfig }
  /** Run the timers on their schedules (this instance owns them) or stop running them. */
  | { kind: 'timers'; on: boolean }
  | { kind: 'runTimer'; id: number; name: string }
  | { kind: 'queuesIdle'; id: number; timeoutMs: number };

/** From an instance to the fleet. */
export type FromInstance =
  | { kind: 'ready'; url: string; functions: { http: string[]; timers: string[]; queues: string[] } }
  | { kind: 'failed'; message: string }
  | { kind: 'log'; level: Parameters<HostLog>[0]; message: string }
  | { kind: 'timerRun'; name: string; succeeded: boolean }
  | { kind: 'reply'; id: number; error?: string };
