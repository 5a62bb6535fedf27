import type { Logger } from '../log.ts';
import type { SecretStore } from '../secrets.ts';
import { SECRET_SERVICE_TOKEN, SECRET_WEBHOOK } from '../service-endpoint.ts';

export interface SecretsToSave {
  serviceToken?: string;
  webhookSecret?: string;
}

/**
 * Saves secrets for the next start (encrypted at rest). Values are never echoed back or
 * logged; the answer says only which were saved.
 */
export async function saveSecrets(store: SecretStore, log: Logger, input: SecretsToSave): Promise<{ saved: string[]; store: string }> {
  const saved: string[] = [];
  if (input.serviceToken !== undefined) {
    await store.set(SECRET_SERVICE_TOKEN, input.serviceToken);
    saved.push(SECRET_SERVICE_TOKEN);
  }
  if (input.webhookSecret !== undefined) {
    await store.set(SECRET_WEBHOOK, input.webhookSecret);
    saved.push(SECRET_WEBHOOK);
  }
  log.info('secrets saved; they take effect at the next start', { saved, store: store.kind });
  return { saved, store: store.kind };
}

/**
 * `--remember-secrets` of both shells: keeps the secrets the environment gives in the
 * core's secret store for the next start. Deliberately not a bridge method: whoever holds
 * the bridge must not be able to replace the webhook secret and forge payments.
 */
export async function rememberSecrets(core: { saveSecrets(input: SecretsToSave): Promise<{ saved: string[] }> }, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const serviceToken = env.POS_SERVICE_TOKEN?.trim();
  const webhookSecret = env.POS_WEBHOOK_SECRET?.trim();
  const { saved } = await core.saveSecrets({ ...(serviceToken ? { serviceToken } : {}), ...(webhookSecret ? { webhookSecret } : {}) });
  return saved;
}
