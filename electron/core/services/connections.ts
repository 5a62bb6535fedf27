import type { Connection } from '../devices/connection.ts';
import type { Devices } from '../devices/devices.ts';
import type { Session } from '../operators/operators.ts';
import type { CheckoutKey } from '../terminal/terminal.ts';
import type { CoreStatus } from './status-board.ts';

/** What a session's connection is as it stands now, and which checkout it rings up on and shows. */
export class Connections {
  readonly #devices: () => Devices | null;
  readonly #storeCheckout: () => CheckoutKey;

  /** `storeCheckout`: the store computer's own windows' checkout (the settings'). */
  constructor(devices: () => Devices | null, storeCheckout: () => CheckoutKey) {
    this.#devices = devices;
    this.#storeCheckout = storeCheckout;
  }

  /** A device revoked since it connected may only pair again. */
  of(session: Session): Connection {
    const { connection } = session;
    if (connection.kind !== 'device') return connection;
    const device = this.#devices()?.active(connection.device.id);
    return device ? { kind: 'device', device } : { kind: 'unpaired', from: 'revoked' };
  }

  /** A paired device's own checkout, else the store computer's. */
  checkoutFor(session: Session): CheckoutKey {
    const connection = this.of(session);
    return connection.kind === 'device' ? { storeId: connection.device.storeId, checkoutId: connection.device.checkoutId } : this.#storeCheckout();
  }

  /** The status as one connection sees it: its own checkout and device. */
  statusFor(session: Session, status: CoreStatus): CoreStatus {
    const connection = this.of(session);
    return { ...status, terminal: this.checkoutFor(session), device: connection.kind === 'device' ? connection.device : null };
  }
}
