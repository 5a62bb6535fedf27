/** The merchant's wallets (contract 5). */
import type { v } from '../../../shared/schema.ts';
import { decodeAnswer, flag, integer, list, record, text } from '../decode.ts';
import { route, WALLETS } from './route.ts';

const WALLET = record({
  wallet_id: integer,
  address: text,
  network: text,
  currency: text,
  /** A deprecated network is what answers `Wallet network deprecated`. */
  deprecated: flag,
});
export type Wallet = v.InferOutput<typeof WALLET>;

export const WALLET_ROUTES = {
  'wallets.list': route({
    method: 'GET',
    path: '/v2/wallets',
    action: "list the merchant's wallets",
    access: WALLETS,
    retry: 'always',
    success: [200],
    assumptions: ['Wallet record as contract 5 (reference 2.5b shows only wallet_id).'],
    encode: (_: void) => ({}),
    decode: (body) => decodeAnswer(list(WALLET), body),
  }),
} as const;
