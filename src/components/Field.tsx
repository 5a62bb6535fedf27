import type { ReactNode } from 'react';

/**
 * A labelled form field: the label names the control (`id`) that follows it, then any help.
 * A field a form checks (`problem` given, null while nothing is wrong) ends with the line
 * that says what is wrong with it (issue 26), `${id}-error`, which its control names in
 * aria-describedby (fieldProblemProps); the line is always there, so the layout does not jump.
 */
export function Field({ id, label, problem, children }: { id: string; label: ReactNode; problem?: string | null; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
      {problem !== undefined && (
        <p id={`${id}-error`} className="error" role={problem ? 'alert' : undefined}>
          {problem}
        </p>
      )}
    </div>
  );
}

/** What the control of a checked field says of itself: invalid while its line names a problem. */
export function fieldProblemProps(id: string, problem: string | null, describedBy?: string) {
  return { 'aria-invalid': problem !== null || undefined, 'aria-describedby': describedBy ? `${id}-error ${describedBy}` : `${id}-error` };
}

/** Puts the cursor in the first field of `order` that has a problem; whether there was one. */
export function focusFirstProblem(prefix: string, order: readonly string[], problems: Readonly<Record<string, unknown>>): boolean {
  const first = order.find((f) => problems[f] !== undefined);
  if (first === undefined) return false;
  document.getElementById(`${prefix}-${first}`)?.focus();
  return true;
}

/**
 * A PIN, typed as digits and never shown. `autoComplete` tells a password manager whether
 * this is the PIN of a sign-in or a new one.
 */
export function PinField({
  id,
  label,
  value,
  onChange,
  autoComplete,
  problem,
}: {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (pin: string) => void;
  autoComplete: 'current-password' | 'new-password';
  /** For a PIN being set: what is wrong with it (null: nothing), said beside it. */
  problem?: string | null;
}) {
  return (
    <Field id={id} label={label} problem={problem}>
      <input
        id={id}
        type="password"
        inputMode="numeric"
        maxLength={8}
        autoComplete={autoComplete}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        {...(problem !== undefined ? fieldProblemProps(id, problem) : {})}
      />
    </Field>
  );
}

/** A form's one primary action. */
export function Submit({ disabled, children }: { disabled?: boolean; children: ReactNode }) {
  return (
    <button type="submit" className="primary" disabled={disabled}>
      {children}
    </button>
  );
}
