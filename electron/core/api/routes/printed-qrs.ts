/** Printed dynamic QRs (reference 2.4, 4.4): administration. */
import { v } from '../../../shared/schema.ts';
import { decodeAnswer, integer, list, record, text, textOrNull } from '../decode.ts';
import { ADMINISTRATION, route } from './route.ts';

const PRINTED_QR = record({
  printed_dynamic_qr_id: text,
  qr_emvcode: text,
  qr_location_id: text,
  /** The settling wallet's address, partly masked by the service. */
  address: text,
  checkout_id: integer,
  merchant_id: integer,
  store_id: integer,
  /** Epoch seconds (reference 2.4). */
  created_at: integer,
});

export type PrintedDynamicQr = v.InferOutput<typeof PRINTED_QR> & {
  /** Reference 4.4 rule 2: false when the checkout already had this QR (HTTP 200), true when made now (201). */
  created: boolean;
};

export interface CreatePrintedQrBody {
  checkout_id: number;
  store_id?: number;
  auto_create_checkout?: boolean;
  checkout_desc?: string;
  /** Only with auto_create_checkout; send wallet_id or address, not both (reference 4.4). */
  wallet_id?: number;
  address?: string;
}

export interface PrintedQrListQuery {
  store_id?: number;
  checkout_id?: number;
  page?: number;
  page_size?: number;
}

const PRINTED_QR_PAGE = record({
  total: integer,
  page: integer,
  page_size: integer,
  stores: list(
    record({
      store_id: integer,
      store_name: textOrNull,
      company_name: textOrNull,
      checkouts: list(
        record({
          checkout_id: integer,
          checkout_desc: textOrNull,
          printed_dynamic_qrs: list(record({ printed_dynamic_qr_id: text, qr_emvcode: text, address: text })),
        }),
      ),
    }),
  ),
});
export type PrintedQrPage = v.InferOutput<typeof PRINTED_QR_PAGE>;

export const PRINTED_QR_ROUTES = {
  'printedQrs.create': route({
    method: 'POST',
    path: '/v2/printed_dynamic_qrs',
    action: "create the checkout's printed QR",
    access: ADMINISTRATION,
    retry: 'never',
    success: [200, 201],
    assumptions: [
      'Access is administration (contract 1; reference 5 leaves it open).',
      'Statuses of `Checkout not found for this merchant` and the other unlisted details are not shown (reference 7): read by body shape only.',
    ],
    encode: (body: CreatePrintedQrBody) => ({ body }),
    decode: (body, status): PrintedDynamicQr => ({ ...decodeAnswer(PRINTED_QR, body), created: status === 201 }),
  }),
  'printedQrs.list': route({
    method: 'GET',
    path: '/v2/printed_dynamic_qrs',
    action: 'list the printed QRs',
    access: ADMINISTRATION,
    retry: 'always',
    success: [200],
    assumptions: ['Access is administration (contract 1).'],
    encode: (query: PrintedQrListQuery) => ({ query: { ...query } }),
    decode: (body) => decodeAnswer(PRINTED_QR_PAGE, body),
  }),
} as const;
