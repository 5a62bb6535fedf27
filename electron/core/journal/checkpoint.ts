/**
 * The checkpoint: the working set's state at one entry of the log (its seq and hash), the
 * summaries of the sealed segments before it, and the projections' states. It lets an
 * open read only the segment it was taken in (and what came after) instead of all history.
 *
 * It is a cache, never the truth: written atomically (temp, fsync, rename, fsync dir), and
 * IGNORED — the journal is rebuilt from the log — when it does not match the log: a bad
 * format or version, other projections, a sealed segment missing or of another size, or
 * (found while reading its segment again at open) another hash at its seq or a log that
 * ends before it.
 */
import { open, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { GENESIS_PREV } from './canonical.ts';
import { fsyncDir } from './log.ts';
import type { ResumePoint } from './log.ts';
import type { SegmentSummary } from './segment-index.ts';
import type { SaleRow, ShiftRecord, WebhookRow } from './view.ts';

export const CHECKPOINT_FILE = 'checkpoint.json';
export const CHECKPOINT_VERSION = 1;

export interface CheckpointFile<S> {
  version: number;
  /** The last entry folded into this state, and the segment it is in. */
  seq: number;
  hash: string;
  segment: string;
  /** Every segment before `segment`, sealed, in order. */
  segments: SegmentSummary[];
  sales: SaleRow<S>[];
  shifts: ShiftRecord[];
  webhooks: WebhookRow[];
  projections: Record<string, unknown>;
  reducerFailures: number;
}

/**
 * Temp file, fsync, rename over the old one, fsync the dir: a crash at any point leaves
 * the old checkpoint or the new one, whole, never a mix (and a stray temp file is ignored).
 */
export async function writeCheckpoint<S>(dir: string, file: CheckpointFile<S>, beforeRename?: () => Promise<void>): Promise<void> {
  const path = join(dir, CHECKPOINT_FILE);
  const temp = `${path}.tmp`;
  const fh = await open(temp, 'w', 0o600);
  try {
    await fh.writeFile(JSON.stringify(file));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await beforeRename?.();
  await rename(temp, path);
  await fsyncDir(dir);
}

export type CheckpointRead<S> = { ok: true; file: CheckpointFile<S> } | { ok: false; reason: string };

export async function readCheckpoint<S>(dir: string): Promise<CheckpointRead<S> | null> {
  let text: string;
  try {
    const fh = await open(join(dir, CHECKPOINT_FILE), 'r');
    try {
      text = await fh.readFile('utf8');
    } finally {
      await fh.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return { ok: false, reason: `cannot be read: ${(err as Error).message}` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'is not valid JSON' };
  }
  const f = raw as Partial<CheckpointFile<S>> | null;
  if (f === null || typeof f !== 'object') return { ok: false, reason: 'is not an object' };
  if (f.version !== CHECKPOINT_VERSION) return { ok: false, reason: `has version ${String(f.version)}, not ${CHECKPOINT_VERSION}` };
  if (!Number.isSafeInteger(f.seq) || (f.seq as number) < 1 || typeof f.hash !== 'string' || typeof f.segment !== 'string') return { ok: false, reason: 'has no valid head' };
  for (const field of ['segments', 'sales', 'shifts', 'webhooks'] as const) {
    if (!Array.isArray(f[field])) return { ok: false, reason: `has no ${field} list` };
  }
  if (f.projections === null || typeof f.projections !== 'object' || Array.isArray(f.projections)) return { ok: false, reason: 'has no projections' };
  if (typeof f.reducerFailures !== 'number') return { ok: false, reason: 'has no reducer failure count' };
  return { ok: true, file: f as CheckpointFile<S> };
}

/**
 * Whether the sealed segments the checkpoint vouches for are on disk as it saw them, and
 * where open must start reading: at the first byte of the checkpoint's own segment.
 */
export async function resumePointOf<S>(dir: string, file: CheckpointFile<S>, segments: readonly string[], projectionNames: readonly string[]): Promise<{ ok: true; point: ResumePoint } | { ok: false; reason: string }> {
  const kept = Object.keys(file.projections).sort();
  const wanted = [...projectionNames].sort();
  if (kept.join('\n') !== wanted.join('\n')) return { ok: false, reason: `keeps projections [${kept.join(', ')}], the journal has [${wanted.join(', ')}]` };
  const index = segments.indexOf(file.segment);
  if (index < 0) return { ok: false, reason: `its segment ${file.segment} is missing` };
  if (file.segments.length !== index) return { ok: false, reason: `vouches for ${file.segments.length} sealed segments, ${index} lie before ${file.segment}` };
  let seq = 1;
  let prev = GENESIS_PREV;
  for (const [i, s] of file.segments.entries()) {
    if (s?.name !== segments[i]) return { ok: false, reason: `segment ${segments[i]} is not the one it sealed (${String(s?.name)})` };
    if (s.firstSeq !== seq || s.prevHash !== prev || !(s.lastSeq >= s.firstSeq)) return { ok: false, reason: `segment ${s.name} does not continue the chain` };
    let size: number;
    try {
      size = (await stat(join(dir, s.name))).size;
    } catch {
      return { ok: false, reason: `segment ${s.name} is missing` };
    }
    if (size !== s.bytes) return { ok: false, reason: `segment ${s.name} is ${size} bytes, it sealed ${s.bytes}` };
    seq = s.lastSeq + 1;
    prev = s.lastHash;
  }
  if (file.seq < seq) return { ok: false, reason: `its seq ${file.seq} lies before its segment` };
  return { ok: true, point: { index, seq, prev, sizes: file.segments.map((s) => s.bytes) } };
}
