import { describe, expect, it } from 'vitest';
import { tookOverFromAnother } from './parts.ts';

describe('a takeover is the lease moving from one core to another', () => {
  it.each([
    [{ holder: 'pc-b:/data', previousHolder: 'pc-a:/data' }, true],
    [{ holder: 'pc-b:/data', previousHolder: 'core-dead' }, true],
    // The first core on a database: it takes the lease from no one.
    [{ holder: 'pc-a:/data', previousHolder: null }, false],
    // The same installation restarted takes back its own lease.
    [{ holder: 'pc-a:/data', previousHolder: 'pc-a:/data' }, false],
    // A name that differs only in case or by a trailing slash is another core.
    [{ holder: 'pc-a:/data', previousHolder: 'PC-A:/data' }, true],
    [{ holder: 'pc-a:/data', previousHolder: 'pc-a:/data/' }, true],
  ])('%j: %s', (lease, expected) => {
    expect(tookOverFromAnother(lease)).toBe(expected);
  });
});
