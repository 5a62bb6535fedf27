/**
 * The composition root (compose.ts) as the shells use it: without POS_SERVICE_URL the core
 * runs on the embedded sandbox and says so; with one it runs on that service, says so, and
 * does none of the sandbox's chores (printing a checkout's QR is a manager's job there).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { composeCore } from './compose.ts';
import { loadConfig } from './core/config.ts';
import type { Core } from './core/core.ts';
import { memoryLogger } from './core/log.ts';
import { Client, TOKENS, FIXTURE_WEBHOOK_SECRET } from './sandbox/conformance/harness.ts';
import { startSandbox, type Sandbox } from './sandbox/server.ts';
import { systemClock } from './shared/clock.ts';

let core: Core | null = null;
let standalone: Sandbox | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await core?.stop();
  core = null;
  await standalone?.close();
  standalone = null;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pos-compose-'));
  dirs.push(dir);
  return dir;
}

describe('composeCore', () => {
  it('without POS_SERVICE_URL: the embedded sandbox, named truthfully, stopped with the core', async () => {
    core = await composeCore(loadConfig({ POS_DATA_DIR: await dataDir() }, []), { log: memoryLogger(systemClock) });
    const url = core.status().service.baseUrl ?? '';
    expect(core.status().service).toMatchObject({ mode: 'sandbox', baseUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    await core.start();
    expect(core.status().service).toMatchObject({ mode: 'sandbox', baseUrl: url, reachable: true });
    // The terminal's checkout is a printed one, prepared in the sandbox.
    expect((await new Client(url).get('/v2/printed_dynamic_qrs')).body.total).toBe(1);
    await core.stop();
    core = null;
    await expect(fetch(`${url}/_sandbox/clock`)).rejects.toThrow();
  });

  it('with POS_SERVICE_URL (how the soak and a real till start it): that service, named remote, and no QR printed behind a manager', async () => {
    standalone = await startSandbox({ port: 0 });
    const env = { POS_DATA_DIR: await dataDir(), POS_SERVICE_URL: standalone.url, POS_SERVICE_TOKEN: TOKENS.manager, POS_WEBHOOK_SECRET: FIXTURE_WEBHOOK_SECRET };
    core = await composeCore(loadConfig(env, []), { log: memoryLogger(systemClock) });
    await core.start();
    expect(core.status().service).toMatchObject({ mode: 'remote', baseUrl: standalone.url, reachable: true });
    expect(core.status().webhooks.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    expect((await new Client(standalone.url).get('/v2/printed_dynamic_qrs')).body.total).toBe(0);
  });

  it('with POS_SERVICE_URL and the token only in the secret store: that token', async () => {
    standalone = await startSandbox({ port: 0 });
    const dir = await dataDir();
    const first = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_SERVICE_URL: standalone.url, POS_SERVICE_TOKEN: TOKENS.manager }, []), { log: memoryLogger(systemClock) });
    await first.saveSecrets({ serviceToken: TOKENS.manager });
    core = await composeCore(loadConfig({ POS_DATA_DIR: dir, POS_SERVICE_URL: standalone.url }, []), { log: memoryLogger(systemClock) });
    await core.start();
    expect(core.status().service).toMatchObject({ mode: 'remote', reachable: true, problem: null });
  });
});
