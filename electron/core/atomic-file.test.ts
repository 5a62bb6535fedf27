import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from './atomic-file.ts';

const dirs: string[] = [];
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pos-atomic-'));
  dirs.push(dir);
  return dir;
};

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('writeFileAtomic', () => {
  it('replaces the file whole and leaves no temp file beside it', async () => {
    const dir = await freshDir();
    const path = join(dir, 'settings.json');
    await writeFile(path, 'old');
    await writeFileAtomic(path, 'new');
    expect(await readFile(path, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['settings.json']);
  });

  it.runIf(process.platform !== 'win32')('gives the file exactly the mode asked, owner-only by default', async () => {
    const dir = await freshDir();
    await writeFileAtomic(join(dir, 'key.pem'), 'k');
    await writeFileAtomic(join(dir, 'cert.pem'), 'c', 0o644);
    expect((await stat(join(dir, 'key.pem'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'cert.pem'))).mode & 0o777).toBe(0o644);
  });

  it('fails without touching what was there when the rename cannot happen', async () => {
    const dir = await freshDir();
    // A directory where the file should go: the rename over it fails.
    const path = join(dir, 'taken');
    await mkdir(path);
    await expect(writeFileAtomic(path, 'new')).rejects.toThrow();
    expect((await stat(path)).isDirectory()).toBe(true);
    expect(await readdir(dir)).toEqual(['taken']);
  });
});
