import { systemClock, type Clock } from '../shared/clock.ts';
import { ConfigError, type CoreConfig } from './config.ts';
import type { Logger } from './log.ts';
import type { SecretStore } from './secrets.ts';

/**
 * The payment service as the core receives it: where it answers, with which token, how
 * its webhooks are signed and which clock is domain time. The start-up entry points make
 * one (electron/compose.ts): a real service from configuration and saved secrets, or the
 * embedded sandbox; the core never knows which beyond what `mode` says for the status bar.
 */
export interface ServiceEndpoint {
  /** What the status bar says: the embedded sandbox, or a service elsewhere. */
  readonly mode: 'sandbox' | 'remote';
  readonly url: string;
  /** The bearer token (a secret: never logged). */
  readonly token: string;
  /** The webhook signing secret; null = no webhooks, payments are followed by polling. */
  readonly webhookSecret: string | null;
  /** Domain time. The embedded sandbox's clock is shared, so moving it moves the core's. */
  readonly clock: Clock;
  /**
   * Once the core's webhook receiver listens (null: it does not): an endpoint that can
   * deliver there (the embedded sandbox) does; a real service is configured by its manager.
   */
  attach?(core: { webhookUrl: string | null; log: Logger }): Promise<void>;
  close(): Promise<void>;
}

/** Names in the secret store. */
export const SECRET_SERVICE_TOKEN = 'service.token';
export const SECRET_WEBHOOK = 'webhook.secret';

/**
 * A real payment service: the address from the configuration, the token and the webhook
 * secret from the environment, else the ones saved in the secret store (encrypted at rest).
 */
export async function remoteServiceEndpoint(config: CoreConfig, secrets: SecretStore, clock: Clock = systemClock): Promise<ServiceEndpoint> {
  if (config.service.kind !== 'remote') throw new Error('remoteServiceEndpoint needs a configured POS_SERVICE_URL');
  const token = config.service.token ?? (await secrets.get(SECRET_SERVICE_TOKEN));
  if (token === null) {
    throw new ConfigError('POS_SERVICE_URL is set but no service token is: set POS_SERVICE_TOKEN (add --remember-secrets to keep it encrypted for next time).');
  }
  return {
    mode: 'remote',
    url: config.service.baseUrl,
    token,
    webhookSecret: config.webhook.secret ?? (await secrets.get(SECRET_WEBHOOK)),
    clock,
    close: async () => undefined,
  };
}
