// Issue point 8: the standalone sandbox (`npm run sandbox -- --port P`): prints its URL,
// serves the API and the control API on loopback, keeps --data-file across restarts, stops
// cleanly on SIGTERM, and refuses a non-loopback host with the control API on.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from './conformance/harness.ts';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function run(args: string[]): { child: ChildProcess; url: Promise<string>; exit: Promise<number | null>; output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (m) resolve(m[1] as string);
    });
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', () => reject(new Error(`exited before listening: ${output}`)));
  });
  url.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, url, exit, output: () => output };
}

describe('npm run sandbox', () => {
  it('prints its URL, serves the API and the control API, keeps --data-file, stops on SIGTERM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-cli-'));
    try {
      const file = join(dir, 'state.json');
      const first = run(['--port', '0', '--data-file', file]);
      const api = new Client(await first.url);
      expect((await api.post('/v2/stores', { store_name: 'Via CLI' })).status).toBe(201);
      expect((await api.control('GET', '/clock')).status).toBe(200);
      first.child.kill('SIGTERM');
      expect(await first.exit).toBe(0);

      const second = run(['--port', '0', '--data-file', file, '--no-control']);
      const again = new Client(await second.url);
      expect((await again.get('/v2/stores')).body.map((s: { store_name: string }) => s.store_name)).toEqual(['Loja Centro', 'Via CLI']);
      expect((await again.control('POST', '/reset')).status).toBe(404);
      second.child.kill('SIGTERM');
      expect(await second.exit).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a non-loopback host while the control API is on, and bad arguments', async () => {
    const open = run(['--port', '0', '--host', '0.0.0.0']);
    expect(await open.exit).toBe(2);
    expect(open.output()).toMatch(/loopback/);
    const bad = run(['--port', 'eighty']);
    expect(await bad.exit).toBe(2);
    const unknown = run(['--frobnicate']);
    expect(await unknown.exit).toBe(2);
  });
});
