import type { ReactNode } from 'react';

/** A labelled form field: the label names the control (`id`) that follows it, then any help. */
export function Field({ id, label, children }: { id: string; label: ReactNode; children: ReactNode }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  );
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
}: {
  id: string;
  label: ReactNode;
  value: string;
  onChange: (pin: string) => void;
  autoComplete: 'current-password' | 'new-password';
}) {
  return (
    <Field id={id} label={label}>
      <input id={id} type="password" inputMode="numeric" maxLength={8} autoComplete={autoComplete} value={value} onChange={(e) => onChange(e.target.value)} />
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
