import type { Core, PushEvents } from './core.ts';
import { connectionMay } from './devices/connection.ts';
import type { Session } from './operators/operators.ts';
import { mayUse } from './operators/roles.ts';

/**
 * Which push a connection receives, and in what form: the one routing rule both shells
 * apply (issue 9, point 4). A till hears its own checkout only, whichever webhook or poll
 * brought the news, and its sales only while someone is signed in on it; a customer display its checkout's display state only; the merchant-wide
 * attention list goes to whoever is signed in as a supervisor or a manager, on any till.
 * Returns undefined when the connection is not to receive it.
 */
export function routedPush<E extends keyof PushEvents>(core: Core, session: Session, event: E, payload: PushEvents[E]): PushEvents[E] | undefined {
  const connection = core.connectionOf(session);
  if (connection.kind === 'unpaired') return undefined;
  const till = connectionMay(connection, 'till');
  const own = core.checkoutFor(session);
  const ours = (p: { store_id: number; checkout_id: number }) => p.store_id === own.storeId && p.checkout_id === own.checkoutId;
  switch (event) {
    case 'core.status':
      return till ? (core.statusFor(session, payload as PushEvents['core.status']) as PushEvents[E]) : undefined;
    case 'checkout.changed':
      // The checkout's sales are a signed-in till's (issue 25): a signed-out one hears them after sign-in.
      return till && ours(payload as PushEvents['checkout.changed']) && core.operators.caller(session) !== null ? payload : undefined;
    case 'display.changed':
      return ours(payload as PushEvents['display.changed']) ? payload : undefined;
    case 'attention.changed':
      return till && mayUse(core.operators.caller(session)?.role ?? null, 'supervisor') ? payload : undefined;
    // Each till hears its own sign-in, never another's.
    case 'auth.changed':
      return till ? (core.operators.status(session) as PushEvents[E]) : undefined;
    // The floor board goes to the sessions that opened it, in their time zone (board/push.ts).
    case 'board.changed':
      return till && core.boardWatching(session, (payload as PushEvents['board.changed']).time_zone) ? payload : undefined;
    default:
      return undefined;
  }
}
