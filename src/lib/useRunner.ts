import { useState } from 'react';
import { toUiError } from './bridge.ts';
import { errorText, type UiError } from './errorText.ts';
import { useLang } from './useText.ts';

/** How the last step went, in a sentence; a refusal keeps the core's error for what it offers next. */
export type Result = { ok: boolean; text: string; error?: UiError } | null;

/**
 * Runs a bridge call a person waits for: `busy` while it runs, then `result` says how it went
 * in the app's language (`done` words a success, or null to say nothing). Resolves to the
 * call's answer, or null when it was refused.
 */
export function useRunner() {
  const lang = useLang();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result>(null);
  const run = async <T>(call: () => Promise<T>, done: (value: T) => string | null): Promise<T | null> => {
    setBusy(true);
    try {
      const value = await call();
      const text = done(value);
      setResult(text === null ? null : { ok: true, text });
      return value;
    } catch (err) {
      const error = toUiError(err);
      setResult({ ok: false, text: errorText(lang, error), error });
      return null;
    } finally {
      setBusy(false);
    }
  };
  return { busy, result, setResult, run };
}
