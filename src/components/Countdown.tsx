import { Icon } from './Icon.tsx';
import { useEffect, useState } from 'react';
import { URGENT_MS, formatCountdown, remainingMs } from '../lib/countdown.ts';
import { useText } from '../lib/useText.ts';

const now = () => performance.now();

/**
 * Time left to pay, on the core's clock: `coreNow` is the view's `now`, `receivedAt` the
 * local monotonic time it arrived. When it reaches zero it asks for a fresh view (the core
 * decides whether the sale expired). A timer role: not read out every second.
 */
export function Countdown({ expiresAt, coreNow, receivedAt, onOver }: { expiresAt: number; coreNow: number; receivedAt: number; onOver?: () => void }) {
  const t = useText();
  const [localNow, setLocalNow] = useState(now);
  useEffect(() => {
    const timer = setInterval(() => setLocalNow(now()), 250);
    return () => clearInterval(timer);
  }, []);
  const left = remainingMs(expiresAt, coreNow, receivedAt, localNow);
  const over = left === 0;
  useEffect(() => {
    if (over) onOver?.();
  }, [over, onOver]);
  const urgent = left < URGENT_MS;
  return (
    <p className={`countdown${urgent ? ' countdown-urgent' : ''}`} role="timer" aria-live="off">
      <span className="countdown-label">{t('screen.timeLeft')}</span>{' '}
      <span className="countdown-value" data-testid="countdown">
        {formatCountdown(left)}
      </span>
      {urgent && (
        <span className="countdown-note">
          {' '}
          <Icon name="alert" /> {t('screen.timeUrgent')}
        </span>
      )}
    </p>
  );
}
