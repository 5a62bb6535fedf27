/**
 * `GET /v2/wallets` (contract 5): the merchant's wallets, any role with scope pay_in or
 * pay_out (contract 1). A deprecated network is what answers `Wallet network deprecated`.
 */
import { ACCESS, guard } from '../auth.ts';
import type { SandboxContext } from '../context.ts';
import type { Reply, Router } from '../http.ts';

export function register(router: Router, ctx: SandboxContext): void {
  router.add('GET', '/v2/wallets', (req): Reply => {
    const p = guard(req, ACCESS.wallets);
    const body = Object.values(ctx.state.wallets)
      .filter((w) => w.merchant_id === p.merchantId)
      .sort((a, b) => a.wallet_id - b.wallet_id)
      .map((w) => ({ wallet_id: w.wallet_id, address: w.address, network: w.network, currency: w.currency, deprecated: w.deprecated }));
    return { status: 200, body };
  });
}
