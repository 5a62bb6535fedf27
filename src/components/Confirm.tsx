import { useEffect, useRef, type ReactNode } from 'react';
import { Icon } from './Icon.tsx';

/**
 * The question before an irreversible step: its title, what cannot be undone, and two
 * answers. The safe answer has the focus, and Escape gives it: Enter or a stray key must
 * never take the step by accident.
 */
export function Confirm({
  id,
  title,
  body,
  keep,
  go,
  busy,
  onKeep,
  onGo,
}: {
  /** Prefix of the title's and the body's ids, unique on the page. */
  id: string;
  title: ReactNode;
  body: ReactNode;
  keep: string;
  go: string;
  busy: boolean;
  onKeep: () => void;
  onGo: () => void;
}) {
  const keepRef = useRef<HTMLButtonElement>(null);
  useEffect(() => keepRef.current?.focus(), []);
  return (
    <div
      className="confirm"
      role="alertdialog"
      aria-modal="false"
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-body`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onKeep();
      }}
    >
      <h3 id={`${id}-title`}>
        <Icon name="alert" /> {title}
      </h3>
      <p id={`${id}-body`}>{body}</p>
      <div className="actions">
        <button type="button" className="secondary" ref={keepRef} onClick={onKeep}>
          {keep}
        </button>
        <button type="button" className="danger" disabled={busy} onClick={onGo}>
          {go}
        </button>
      </div>
    </div>
  );
}
