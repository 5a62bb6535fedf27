import type { ReactNode } from 'react';
import type { Result } from '../lib/useRunner.ts';
import { Icon } from './Icon.tsx';

/**
 * A form's problem, in words: the line is always there (the layout does not jump) and is an
 * alert only while it says something, so a screen reader announces it when it appears.
 */
export function FormError({ text, testId }: { text: string | null; testId?: string }) {
  return (
    <p className="error" role={text ? 'alert' : undefined} {...(testId ? { 'data-testid': testId } : {})}>
      {text && (
        <>
          <Icon name="cross" /> {text}
        </>
      )}
    </p>
  );
}

/** A problem that is not a form's (a list that did not load, a refused step): there only while there is one. */
export function ErrorAlert({ children }: { children: ReactNode }) {
  return (
    <p className="error" role="alert">
      {children}
    </p>
  );
}

/** How the last step went, in words with its icon; the line stays, so the layout does not jump. */
export function ResultLine({ result }: { result: Result }) {
  return (
    <p aria-live="polite" className={result ? (result.ok ? 'good' : 'error') : ''}>
      {result && (
        <>
          <Icon name={result.ok ? 'check' : 'cross'} /> {result.text}
        </>
      )}
    </p>
  );
}
