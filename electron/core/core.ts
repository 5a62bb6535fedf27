import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import pkg from '../../package.json' with { type: 'json' };
import { systemClock, type Clock } from '../shared/clock.ts';
import { describeConfig, type CoreConfig, type Lang } from './config.ts';
import { CoreError, type WireError } from './errors.ts';
import { EventHub } from './events.ts';
import { createLogger, type Logger } from './log.ts';

export type CoreState = 'stopped' | 'starting' | 'ready' | 'stopping' | 'failed';

export interface ServiceStatus {
  mode: 'sandbox' | 'remote';
  /** Where the service answers; null until the embedded sandbox has started. */
  baseUrl: string | null;
  /** null = not checked yet. */
  reachable: boolean | null;
  checkedAt: string | null;
  problem: WireError | null;
}

export interface CoreStatus {
  version: string;
  state: CoreState;
  startedAt: string | null;
  lang: Lang;
  terminal: { storeId: number; checkoutId: number };
  service: ServiceStatus;
}

/** Push events, core → renderer. The map IS the contract for `listen`. */
export interface PushEvents {
  'core.status': CoreStatus;
}

export interface CoreDeps {
  clock?: Clock;
  log?: Logger;
}

interface EmbeddedSandbox {
  url: string;
  close(): Promise<void>;
}

const PROBE_INTERVAL_MS = 15_000;

/**
 * The terminal core: plain Node, no Electron. Owns the service connection, and later the
 * webhook receiver, polling and the sale journal. Both shells create one, start it, expose
 * its handlers over their transport and forward its push events.
 */
export class Core {
  readonly config: CoreConfig;
  readonly clock: Clock;
  readonly log: Logger;
  readonly events = new EventHub<PushEvents>();

  #state: CoreState = 'stopped';
  #startedAt: number | null = null;
  #lang: Lang;
  #service: ServiceStatus;
  #token: string | null = null;
  #sandbox: EmbeddedSandbox | null = null;
  #probeTimer: NodeJS.Timeout | null = null;

  constructor(config: CoreConfig, deps: CoreDeps = {}) {
    this.config = config;
    this.clock = deps.clock ?? systemClock;
    this.log = deps.log ?? createLogger((line) => process.stderr.write(line + '\n'), this.clock);
    this.#lang = config.lang;
    this.#service = {
      mode: config.service.kind,
      baseUrl: config.service.kind === 'remote' ? config.service.baseUrl : null,
      reachable: null,
      checkedAt: null,
      problem: null,
    };
  }

  get state(): CoreState {
    return this.#state;
  }

  async start(): Promise<void> {
    if (this.#state !== 'stopped') throw new CoreError('conflict', `The core cannot start while it is ${this.#state}.`);
    this.#setState('starting');
    this.log.info('core starting', { config: describeConfig(this.config) });
    try {
      // The data dir holds the journal and secrets: readable by this user only.
      await mkdir(this.config.dataDir, { recursive: true, mode: 0o700 });
      if (this.config.service.kind === 'sandbox') {
        const { startSandbox } = await import('../sandbox/server.ts');
        const { SANDBOX_APP_TOKEN } = await import('../sandbox/fixture.ts');
        const sandbox = await startSandbox({
          port: this.config.service.port,
          host: '127.0.0.1',
          persistFile: join(this.config.dataDir, 'sandbox-state.json'),
          log: (line: string) => this.log.info('sandbox', { line }),
        });
        this.#sandbox = sandbox;
        this.#token = SANDBOX_APP_TOKEN;
        this.#service = { ...this.#service, baseUrl: sandbox.url };
      } else {
        this.#token = this.config.service.token;
      }
      this.#startedAt = this.clock.now();
      this.#setState('ready');
      await this.probeService();
      this.#probeTimer = setInterval(() => void this.probeService(), PROBE_INTERVAL_MS);
      this.#probeTimer.unref();
      this.log.info('core ready', { service: this.#service.baseUrl });
    } catch (err) {
      this.log.error('core failed to start', { error: err });
      await this.#closeResources();
      this.#setState('failed');
      throw err;
    }
  }

  async stop(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'stopping') return;
    this.#setState('stopping');
    await this.#closeResources();
    this.#setState('stopped');
    this.log.info('core stopped');
  }

  status(): CoreStatus {
    return {
      version: pkg.version,
      state: this.#state,
      startedAt: this.#startedAt === null ? null : new Date(this.#startedAt).toISOString(),
      lang: this.#lang,
      terminal: { ...this.config.terminal },
      service: { ...this.#service },
    };
  }

  setLang(lang: Lang): CoreStatus {
    this.#lang = lang;
    this.#emitStatus();
    return this.status();
  }

  /**
   * Is the service there and does it take our token? Any HTTP answer means reachable;
   * a 401 means reachable but the token is refused, which a manager must fix.
   */
  async probeService(): Promise<ServiceStatus> {
    const baseUrl = this.#service.baseUrl;
    if (baseUrl === null || this.#token === null) return this.#service;
    let reachable = false;
    let problem: WireError | null = null;
    try {
      const res = await request(`${baseUrl}/v2/wallets`, {
        method: 'GET',
        headers: { authorization: `Bearer ${this.#token}`, accept: 'application/json' },
        headersTimeout: 5_000,
        bodyTimeout: 5_000,
      });
      await res.body.dump();
      reachable = true;
      if (res.statusCode === 401 || res.statusCode === 403) {
        problem = { code: 'service_rejected', message: 'The payment service refused the access token: a manager must set a valid token.' };
      } else if (res.statusCode >= 500) {
        problem = { code: 'service_failed', message: `The payment service answered with an error (HTTP ${res.statusCode}); sales may fail until it recovers.` };
      }
    } catch (err) {
      problem = { code: 'service_unreachable', message: 'The payment service cannot be reached: check the network connection.' };
      this.log.warn('service probe failed', { error: err });
    }
    const next: ServiceStatus = { ...this.#service, reachable, problem, checkedAt: new Date(this.clock.now()).toISOString() };
    const changed = next.reachable !== this.#service.reachable || next.problem?.code !== this.#service.problem?.code;
    this.#service = next;
    if (changed) this.#emitStatus();
    return next;
  }

  async #closeResources(): Promise<void> {
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    this.#probeTimer = null;
    const sandbox = this.#sandbox;
    this.#sandbox = null;
    if (sandbox) await sandbox.close();
  }

  #setState(state: CoreState): void {
    this.#state = state;
    this.#emitStatus();
  }

  #emitStatus(): void {
    this.events.emit('core.status', this.status());
  }
}
