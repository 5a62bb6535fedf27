/**
 * The setup page's bridge (connect mode, before this computer knows its store): the page asks
 * main to read the certificate of an address, then to connect once the person has compared
 * its fingerprint with the one the store's Devices screen shows. Channel names and shapes
 * shared by electron/main, electron/preload/setup.ts and src/setup.tsx.
 */
export const SETUP_CHANNELS = { probe: 'posSetup:probe', confirm: 'posSetup:confirm' } as const;

/** Why an address typed on the setup page cannot be the store's. */
export type StoreAddressProblem = 'not_an_address' | 'not_https' | 'no_port' | 'has_credentials' | 'has_path';

/** Why the certificate at a well-formed address could not be read. */
export type ReadProblem = 'unreachable' | 'not_tls';

export type ProbeProblem = StoreAddressProblem | ReadProblem;

export type ProbeResult = { ok: true; origin: string; fingerprint: string } | { ok: false; problem: ProbeProblem };

/** window.posSetup, exposed to the app's own setup page only. */
export interface PosSetup {
  /** Reads the certificate fingerprint of the address (https://host:port); saves nothing. */
  probe(address: string): Promise<ProbeResult>;
  /** Pins the probed origin and fingerprint and opens the store; false if they are not the last ones probed. */
  confirm(origin: string, fingerprint: string): Promise<boolean>;
}
