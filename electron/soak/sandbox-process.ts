/**
 * The standalone sandbox (electron/sandbox/cli.ts) as a process of its own on a free
 * loopback port: it outlives every core the campaign kills, as a real payment service
 * would. Stopped by its pid (SIGTERM, then SIGKILL if it lingers).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SANDBOX_CLI = fileURLToPath(new URL('../sandbox/cli.ts', import.meta.url));

export interface SandboxProcess {
  pid: number;
  url: string;
  /** Lines the sandbox wrote to stderr, e.g. `webhook … failed after 6 attempts`. */
  logLines(): readonly string[];
  stop(): Promise<void>;
}

/** `webhookConcurrency`: the sandbox's --webhook-concurrency (its default when absent). */
export function startSandboxProcess(tracked: Set<ChildProcess>, options: { webhookConcurrency?: number } = {}): Promise<SandboxProcess> {
  const extra = options.webhookConcurrency === undefined ? [] : ['--webhook-concurrency', String(options.webhookConcurrency)];
  const child = spawn(process.execPath, [SANDBOX_CLI, '--port', '0', '--host', '127.0.0.1', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  tracked.add(child);
  const lines: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    lines.push(line);
    if (lines.length > 5_000) lines.shift();
  });
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      tracked.delete(child);
      resolve();
    }),
  );
  return new Promise<SandboxProcess>((resolve, reject) => {
    const guard = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the sandbox did not start in time:\n${lines.join('\n')}`));
    }, 30_000);
    child.once('exit', (code, signal) => {
      clearTimeout(guard);
      reject(new Error(`the sandbox exited (${signal ?? code}) before it listened:\n${lines.join('\n')}`));
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
      if (url === undefined) return;
      clearTimeout(guard);
      resolve({
        pid: child.pid ?? -1,
        url,
        logLines: () => lines,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}
