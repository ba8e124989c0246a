/*
 * A process's memory as Linux counts it, for benchmarks that report the peak resident size of the service or
 * of the store: VmRSS (now) and VmHWM (the peak since the process started) of /proc/<pid>/status.
 */
import fs from 'node:fs';

export const MB = 1024 * 1024;

function statusField(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined; // no /proc (not Linux) or the process is gone
  }
}

/** The process's peak resident size so far, in bytes (undefined where /proc is not available). */
export const peakRssBytes = (pid: number | 'self' = 'self'): number | undefined => statusField(pid, 'VmHWM');

/** The process's resident size now, in bytes. */
export const rssBytes = (pid: number | 'self' = 'self'): number | undefined => statusField(pid, 'VmRSS');
