/**
 * The map stays true: every folder that holds the app's code says what it is for in its own
 * README.md, and docs/architecture.md names every concept folder of the core, so a newcomer
 * finds the room for a change from the map, and a new room cannot arrive unexplained.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Test scaffolding and sub-rooms of one concept explain themselves through their parent. */
const INNER = new Set(['fixtures', 'conformance', 'routes', 'texts']);

function foldersBelow(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !INNER.has(e.name))
    .map((e) => `${dir}/${e.name}`);
}

const ROOMS = ['electron', 'src', 'e2e', 'resources', 'build', 'docs', ...foldersBelow('electron'), ...foldersBelow('electron/core'), ...foldersBelow('src')];

describe('every room says what it is for', () => {
  it.each(ROOMS)('%s/README.md opens with a title and a sentence', (dir) => {
    const readme = join(root, dir, 'README.md');
    expect(existsSync(readme), `${dir}/ has no README.md saying what it is for`).toBe(true);
    const [title, ...rest] = readFileSync(readme, 'utf8').split('\n');
    expect(title).toMatch(/^# \S/);
    expect(rest.join(' ').trim().length).toBeGreaterThan(40);
  });

  it('docs/architecture.md names every concept folder of the core', () => {
    const map = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const missing = foldersBelow('electron/core').filter((dir) => !map.includes(`${dir}/`));
    expect(missing).toEqual([]);
  });
});
