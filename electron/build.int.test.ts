/**
 * The production build as `npm run build` makes it (electron-vite, into a directory of its
 * own): the Electron shell's main bundle carries none of the sandbox fixture's credentials
 * (the embedded sandbox is a chunk of its own, loaded by dynamic import only when no
 * service is configured), and both pages carry the CSP of electron/shared/csp.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_TOKENS, FIXTURE_WEBHOOK_SECRET } from './sandbox/fixture.ts';
import { CONTENT_SECURITY_POLICY } from './shared/csp.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const FIXTURE_SECRETS = [...Object.values(FIXTURE_TOKENS), FIXTURE_WEBHOOK_SECRET];
let out = '';

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'pos-build-'));
  const build = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build', '--logLevel', 'error'], {
    cwd: root,
    env: { ...process.env, POS_BUILD_OUT_DIR: out },
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (build.status !== 0) throw new Error(`electron-vite build failed: ${build.stderr || build.stdout}`);
}, 200_000);

afterAll(async () => {
  await rm(out, { recursive: true, force: true });
});

describe('the production build', () => {
  it("the Electron shell's main bundle carries no fixture token or webhook secret", async () => {
    const main = await readFile(join(out, 'main/index.js'), 'utf8');
    for (const secret of FIXTURE_SECRETS) expect(main.includes(secret), secret).toBe(false);
  });

  it('neither the preload nor the renderer carries them either', async () => {
    const files = [...(await readdir(join(out, 'preload'))).map((f) => join(out, 'preload', f)), ...(await readdir(join(out, 'renderer/assets'))).map((f) => join(out, 'renderer/assets', f))];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      for (const secret of FIXTURE_SECRETS) expect(text.includes(secret), `${secret} in ${file}`).toBe(false);
    }
  });

  it('the embedded sandbox is a chunk of its own, reached only by dynamic import', async () => {
    const chunks = await readdir(join(out, 'main/chunks'));
    const withFixture: string[] = [];
    for (const name of chunks) {
      const text = await readFile(join(out, 'main/chunks', name), 'utf8');
      if (FIXTURE_SECRETS.some((s) => text.includes(s))) withFixture.push(name);
    }
    expect(withFixture).toHaveLength(1);
    const main = await readFile(join(out, 'main/index.js'), 'utf8');
    const chunk = withFixture[0] as string;
    expect(main).toContain(`import("./chunks/${chunk}")`);
    expect(main).not.toMatch(new RegExp(`^import[^(]*["']\\./chunks/${chunk.replace('.', '\\.')}["']`, 'm'));
  });

  it('builds the four preloads (the store’s till windows, its customer display, connect mode’s store page and setup page) each as one file requiring nothing but electron', async () => {
    expect((await readdir(join(out, 'preload'))).sort()).toEqual(['device.cjs', 'display.cjs', 'index.cjs', 'setup.cjs']);
    for (const name of ['device.cjs', 'display.cjs', 'index.cjs', 'setup.cjs']) {
      const text = await readFile(join(out, 'preload', name), 'utf8');
      expect([...text.matchAll(/require\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]), name).toEqual(['electron']);
    }
  });

  it.each(['index.html', 'display.html', 'setup.html'])('the source page %s carries no hand-written policy that could drift: the build writes it', async (page) => {
    expect(await readFile(join(root, 'src', page), 'utf8')).not.toMatch(/content-security-policy/i);
  });

  it.each(['index.html', 'display.html', 'setup.html'])('%s carries exactly the CSP of csp.ts, once', async (page) => {
    const html = await readFile(join(out, 'renderer', page), 'utf8');
    const policies = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)"/gi)].map((m) => m[1]);
    expect(policies).toEqual([CONTENT_SECURITY_POLICY]);
  });
});
