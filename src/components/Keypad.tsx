import { KEYPAD_KEYS, type KeypadKey } from '../lib/amountInput.ts';
import { useText } from '../lib/useText.ts';

/**
 * The on-screen keypad for touch. Its buttons do not take the focus from the amount field
 * (mouse down is cancelled), so a physical Enter after a tap still charges instead of
 * pressing the last key again. They are out of the Tab order: from the keyboard the amount
 * field takes the same keys, and Tab goes straight from Amount to Reference to Charge.
 */
export function Keypad({ separator, onKey, disabled }: { separator: ',' | '.'; onKey: (key: KeypadKey) => void; disabled?: boolean }) {
  const t = useText();
  const label = (key: KeypadKey): { text: string; name?: string } => {
    if (key === 'separator') return { text: separator, name: t('cashier.key.separator') };
    if (key === 'backspace') return { text: '⌫', name: t('cashier.key.backspace') };
    return { text: key };
  };
  return (
    <div className="keypad" role="group" aria-label={t('cashier.keypad')}>
      {KEYPAD_KEYS.map((key) => {
        const { text, name } = label(key);
        return (
          <button
            key={key}
            type="button"
            className="key"
            aria-label={name}
            tabIndex={-1}
            disabled={disabled}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => onKey(key)}
          >
            {text}
          </button>
        );
      })}
    </div>
  );
}
