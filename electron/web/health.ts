/**
 * The health address a load balancer asks (`--health-port`, POS_HEALTH_PORT): GET /health
 * answers 200 on the merchant's active core once it serves, 503 on a standby, a core still
 * starting, one that stepped down, or one whose database stopped answering. The body says
 * which, with the lease's term and since when (JSON), for a person reading it too.
 *
 * It listens before the core opens its journal, so a standby that waits for the lease is
 * already seen as one. With a database it also says how many webhooks wait in the inbox
 * (`inbox_depth`: kept by a standby, not yet applied by the active core), on either role.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Clock } from '../shared/clock.ts';
import type { LeaseEvent } from '../postgres/open.ts';

export type CoreRole = 'starting' | 'standby' | 'active' | 'stepped_down';

export interface HealthReport {
  role: CoreRole;
  /** The lease's term this core holds or held; null without a database (one core, its files). */
  term: number | null;
  /** Whether the last call to the database was answered; null without a database. */
  database: 'reachable' | 'unreachable' | null;
  /** When the role last changed (ISO 8601). */
  since: string;
  /** On a standby: the core that holds the lease. */
  active_core?: string;
  /** With a database: the webhook inbox's rows not applied yet, as last counted (null: the database did not answer). */
  inbox_depth?: number | null;
}

/** How long a health request waits for the inbox's count: a load balancer's check must not hang on it. */
const DEPTH_WAIT_MS = 1_000;

/** The core's health as its lease and its start tell it. */
export class CoreHealth {
  readonly #clock: Clock;
  #report: HealthReport;
  #depth: (() => Promise<number>) | null = null;

  constructor(clock: Clock, usesDatabase: boolean) {
    this.#clock = clock;
    this.#report = { role: 'starting', term: null, database: usesDatabase ? 'reachable' : null, since: this.#now() };
  }

  report(): HealthReport {
    return { ...this.#report };
  }

  /** How to count the webhook inbox (postgres/open.ts onInbox): each report counts it from now on. */
  inbox(depth: () => Promise<number>): void {
    this.#depth = depth;
    this.#report.inbox_depth = null;
  }

  /** The report with the inbox counted now (when there is one); null when the count does not come in time. */
  async measured(): Promise<HealthReport> {
    const depth = this.#depth;
    if (depth !== null) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), DEPTH_WAIT_MS)));
      this.#report.inbox_depth = await Promise.race([depth().catch(() => null), late]).finally(() => clearTimeout(timer));
    }
    return this.report();
  }

  /** Serving: the core started (with the lease, when there is a database). */
  serving(): void {
    if (this.#report.role !== 'stepped_down') this.#role('active');
  }

  lease(event: LeaseEvent): void {
    switch (event.kind) {
      case 'standby':
        this.#role('standby');
        this.#report.active_core = event.holder;
        break;
      case 'taken':
        this.#report.term = event.term;
        delete this.#report.active_core;
        this.#role('starting');
        break;
      case 'renewed':
        this.#report.database = event.reachable ? 'reachable' : 'unreachable';
        break;
      case 'lost':
        this.#role('stepped_down');
        break;
    }
  }

  #role(role: CoreRole): void {
    if (this.#report.role === role) return;
    this.#report.role = role;
    this.#report.since = this.#now();
  }

  #now(): string {
    return new Date(this.#clock.now()).toISOString();
  }
}

/** 200 only for an active core whose database answers. */
export function healthStatus(report: HealthReport): number {
  return report.role === 'active' && report.database !== 'unreachable' ? 200 : 503;
}

export async function startHealthServer(options: { host: string; port: number; health: CoreHealth }): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/health' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /health is answered here.\n');
      return;
    }
    void options.health.measured().then((report) => {
      res.writeHead(healthStatus(report), { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(report) + '\n');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/health`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
