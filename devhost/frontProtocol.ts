/**
 * The messages between the local fleet (devhost/fleet.ts) and its front's process (devhost/frontProcess.ts), over
 * the IPC channel of a forked process. Types only: both sides import them, neither imports the other.
 */

/** From the fleet to the front. */
export type ToFront =
  | { kind: 'start'; port: number }
  /** Instance `index` serves on `port`: give it requests in turn with the others. */
  | { kind: 'add'; index: number; port: number }
  /** Instance `index` is gone: give it no more requests (answered by 'removed'). */
  | { kind: 'remove'; index: number };

/** From the front to the fleet. */
export type FromFront =
  { kind: 'ready'; url: string } | { kind: 'failed'; message: string } | { kind: 'removed'; index: number };
