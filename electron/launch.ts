/**
 * What the start-up entry points say to the person who typed `npm start`: sentences, not
 * stack traces, and what they need next.
 */

/**
 * Electron's installer (node_modules/electron/install.js) ends with a bare error such as
 * "TypeError: fetch failed" when its download fails: say what that means instead.
 */
export function electronUnavailable(installerOutput: string): string {
  const last = installerOutput.trim().split('\n').pop()?.trim() ?? '';
  const offline = /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|getaddrinfo|socket hang up|network/i.test(installerOutput);
  const why = offline
    ? 'it could not be downloaded: this computer cannot reach its download server'
    : last === ''
      ? 'its installer failed without saying why'
      : `its installer failed: ${last}`;
  return `Electron's binary is not available here (${why}); starting the browser shell instead.`;
}

/** The embedded sandbox's address and how to act as the payer, or nothing for a real service. */
export function sandboxHelp(service: { mode: 'sandbox' | 'remote'; baseUrl: string | null }, checkout: { storeId: number; checkoutId: number }): string | null {
  if (service.mode !== 'sandbox' || service.baseUrl === null) return null;
  const body = JSON.stringify({ store_id: checkout.storeId, checkout_id: checkout.checkoutId });
  return [
    `Payment service: the embedded sandbox at ${service.baseUrl} (no real money).`,
    'To pay the newest sale as the customer would:',
    `  curl -X POST ${service.baseUrl}/_sandbox/pay -H 'content-type: application/json' -d '${body}'`,
    'More control routes (clock, faults, webhooks): electron/sandbox/README.md',
  ].join('\n');
}
