import { useState } from 'react';
import { toUiError } from './bridge.ts';
import type { UiError } from './errorText.ts';

/**
 * A step a person started and waits for: `busy` while it runs (its buttons disabled), and
 * why the core refused it, kept until the next attempt. Resolves to whether it went through.
 */
export function useAttempt() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<UiError | null>(null);
  const attempt = async (run: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await run();
      return true;
    } catch (err) {
      setError(toUiError(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, attempt };
}
