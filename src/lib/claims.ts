import type { MedStatus } from '../../electron/core/contract.ts';
import type { TextKey } from './texts/en.ts';

/** A claim's status as a word (reference 3.2), never the code. */
export const CLAIM_STATUS_TEXT: Record<MedStatus, TextKey> = {
  dispatching: 'claims.status.dispatching',
  open: 'claims.status.open',
  tracking: 'claims.status.tracking',
  under_analysis: 'claims.status.under_analysis',
  analysed: 'claims.status.analysed',
  refunding: 'claims.status.refunding',
  closed: 'claims.status.closed',
  cancelled: 'claims.status.cancelled',
};
