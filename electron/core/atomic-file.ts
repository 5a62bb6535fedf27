import { randomBytes } from 'node:crypto';
import { chmod, open, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `text` to `path` whole or not at all: a temp file beside it, flushed to disk, renamed
 * over it, then the directory flushed (the rename itself is durable only once the directory
 * entry is on disk). The temp file has `mode` from its first byte, so a key or a settings file
 * is never readable by others even briefly, and exactly `mode` before the rename (the umask
 * may have narrowed it). A failed write leaves the old file as it was and no temp file behind.
 */
export async function writeFileAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(temp, mode);
    await rename(temp, path);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  try {
    const dir = await open(dirname(path), 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  } catch {
    // Some platforms cannot flush a directory; the rename is still atomic.
  }
}
