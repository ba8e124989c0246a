/*
 * Resuming an interrupted upload. While a staged import is uploaded, a small file in the state folder
 * remembers which import it is and what it was made from: the service, tenant and source, the SHA-256
 * of the file's content, how the set was cut into parts, and the import options. A later run with the
 * same file and options asks the service which parts it holds (stagedImport) and sends only the others;
 * anything else (another file or options, an import the service no longer knows or already completed)
 * starts over. The file holds no personal value.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const VERSION = 1;

/** What an upload is made from: a saved upload is resumed only when all of it is the same. */
export interface UploadKey {
  service: string;
  tenant: string;
  source: string;
  /** SHA-256 (hex) of the file's bytes. */
  fileHash: string;
  /** Identities per part and body bytes per request the set was cut with. */
  partSize: number;
  maxBodyBytes: number;
  dryRun: boolean;
  maxDeletedRatio: number | null;
}

export interface ResumeState extends UploadKey {
  version: number;
  importId: string;
  /** Identities per part this import was cut with (partSize, or less when the service takes fewer). */
  partIdentities: number;
  /** Parts and identities of the whole set. */
  parts: number;
  identities: number;
  /** When the service lets the import expire (ISO 8601). */
  expiresAt: string;
}

/** What the service says of a staged import (the stagedImport query; null when unknown or expired). */
export interface StagedImportView {
  importId: string;
  source: string;
  sequences: number[];
  runId?: string | null;
}

export type ResumeDecision =
  { resume: false; reason?: string } | { resume: true; importId: string; missing: number[]; received: number };

/** The resume file of an upload of `file` to this service, tenant and source, in `stateDir` (default: the file's folder). */
export function resumeFileFor(o: { file: string; stateDir?: string; service: string; tenant: string; source: string }) {
  const target = createHash('sha256')
    .update(JSON.stringify([o.service, o.tenant.toLowerCase(), o.source]))
    .digest('hex')
    .slice(0, 12);
  const dir = o.stateDir ?? path.dirname(path.resolve(o.file));
  return path.join(dir, `.${path.basename(o.file)}.${target}.import-resume.json`);
}

export async function fileHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The saved upload, or undefined when there is none or it cannot be read (then the upload starts over). */
export function readResume(file: string): ResumeState | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const s = parsed as Partial<ResumeState> | null;
  if (
    !s ||
    s.version !== VERSION ||
    typeof s.importId !== 'string' ||
    typeof s.partIdentities !== 'number' ||
    typeof s.parts !== 'number' ||
    typeof s.identities !== 'number' ||
    typeof s.fileHash !== 'string'
  )
    return undefined;
  return s as ResumeState;
}

/** Written whole or not at all (a new file renamed over the old), readable by its owner only. */
export function writeResume(file: string, state: Omit<ResumeState, 'version'>): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ version: VERSION, ...state }, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function removeResume(file: string): void {
  fs.rmSync(file, { force: true });
}

export function sameKey(a: UploadKey, b: UploadKey): boolean {
  return (
    a.service === b.service &&
    a.tenant.toLowerCase() === b.tenant.toLowerCase() &&
    a.source === b.source &&
    a.fileHash === b.fileHash &&
    a.partSize === b.partSize &&
    a.maxBodyBytes === b.maxBodyBytes &&
    a.dryRun === b.dryRun &&
    a.maxDeletedRatio === b.maxDeletedRatio
  );
}

/** The sequences 1..parts the service does not hold yet, ascending. */
export function missingSequences(parts: number, received: readonly number[]): number[] {
  const have = new Set(received);
  return Array.from({ length: parts }, (_, i) => i + 1).filter((s) => !have.has(s));
}

/** Whether a saved upload is resumed, and which parts are still to be sent. */
export function decideResume(
  saved: ResumeState | undefined,
  wanted: UploadKey & { identities: number },
  staged: StagedImportView | null | undefined,
): ResumeDecision {
  if (!saved) return { resume: false };
  if (!sameKey(saved, wanted) || saved.identities !== wanted.identities)
    return { resume: false, reason: 'the file, source or options changed since the interrupted upload' };
  if (!staged) return { resume: false, reason: 'the interrupted upload expired or is unknown to the service' };
  if (staged.runId) return { resume: false, reason: 'the earlier upload was completed' };
  if (staged.importId !== saved.importId || staged.source !== saved.source)
    return { resume: false, reason: 'the service holds another import under that id' };
  if (staged.sequences.some((s) => !Number.isInteger(s) || s < 1 || s > saved.parts))
    return { resume: false, reason: 'the service holds parts this upload does not have' };
  const missing = missingSequences(saved.parts, staged.sequences);
  return { resume: true, importId: saved.importId, missing, received: saved.parts - missing.length };
}
