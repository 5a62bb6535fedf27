/**
 * Merchant-scoped lookups. Reference 5 rule 4: a merchant sees only its own resources and
 * another merchant's resource is answered as if it did not exist, so every lookup takes the
 * caller's merchant id and there is no way to ask for a resource by id alone.
 */
import { detailError } from './http.ts';
import type { CheckoutRecord, SandboxState, StoreRecord, WalletRecord } from './state.ts';
import { checkoutKey, storeKey } from './state.ts';

export function findStore(state: SandboxState, merchantId: number, storeId: number): StoreRecord | undefined {
  return state.stores[storeKey(merchantId, storeId)];
}

export function findCheckout(state: SandboxState, merchantId: number, storeId: number, checkoutId: number): CheckoutRecord | undefined {
  return state.checkouts[checkoutKey(merchantId, storeId, checkoutId)];
}

export function findWallet(state: SandboxState, merchantId: number, walletId: number): WalletRecord | undefined {
  const wallet = state.wallets[String(walletId)];
  return wallet !== undefined && wallet.merchant_id === merchantId ? wallet : undefined;
}

export function findWalletByAddress(state: SandboxState, merchantId: number, address: string): WalletRecord | undefined {
  return Object.values(state.wallets).find((w) => w.merchant_id === merchantId && w.address === address);
}

/**
 * Reference 4.2 rules / section 7: a wallet missing or another merchant's gives 400
 * `Wallet not found`; one on a deprecated network gives 400 `Wallet network deprecated`.
 */
export function usableWallet(state: SandboxState, merchantId: number, walletId: number): WalletRecord {
  const wallet = findWallet(state, merchantId, walletId);
  if (wallet === undefined) throw detailError(400, 'Wallet not found');
  assertSupportedNetwork(wallet);
  return wallet;
}

export function assertSupportedNetwork(wallet: WalletRecord): void {
  if (wallet.deprecated) throw detailError(400, 'Wallet network deprecated');
}

/** Reference 2.4: part of a wallet address is masked in responses. */
export function maskAddress(address: string): string {
  if (address.length <= 10) return '*'.repeat(address.length);
  return `${address.slice(0, 6)}${'*'.repeat(address.length - 10)}${address.slice(-4)}`;
}
