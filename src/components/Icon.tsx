import type { ReactNode } from 'react';
import type { IconName } from '../lib/messages.ts';

/**
 * Icons as inline SVG, so they look the same on every machine (font glyphs such as ⏳ are
 * missing from many system fonts). Always next to a word, never alone: hidden from
 * assistive technology.
 */
const SHAPES: Record<IconName, ReactNode> = {
  check: <polyline points="4 12.5 9.5 18 20 6.5" />,
  cross: (
    <>
      <line x1="6" y1="6" x2="18" y2="18" />
      <line x1="18" y1="6" x2="6" y2="18" />
    </>
  ),
  clock: (
    <>
      <circle cx="12" cy="12" r="9" />
      <polyline points="12 7 12 12 15.5 14" />
    </>
  ),
  hourglass: (
    <>
      <path d="M6 3h12M6 21h12" />
      <path d="M7 3c0 5 10 6 10 9s-10 4-10 9" />
      <path d="M17 3c0 5-10 6-10 9s10 4 10 9" />
    </>
  ),
  'not-equal': (
    <>
      <line x1="4" y1="9" x2="20" y2="9" />
      <line x1="4" y1="15" x2="20" y2="15" />
      <line x1="16" y1="4" x2="8" y2="20" />
    </>
  ),
  alert: (
    <>
      <path d="M12 3 2.5 20h19z" />
      <line x1="12" y1="10" x2="12" y2="14" />
      <line x1="12" y1="17.2" x2="12" y2="17.3" />
    </>
  ),
  replace: (
    <>
      <path d="M4 14a8 8 0 0 1 14.5-4.5" />
      <polyline points="19.5 4.5 19 10 13.5 9.5" />
      <line x1="4" y1="20" x2="12" y2="20" />
    </>
  ),
  question: (
    <>
      <circle cx="12" cy="12" r="9" />
      <path d="M9.5 9.5a2.5 2.5 0 1 1 3.5 2.3c-.7.3-1 .9-1 1.7" />
      <line x1="12" y1="17" x2="12" y2="17.1" />
    </>
  ),
  dot: <circle cx="12" cy="12" r="5" fill="currentColor" />,
  ring: <circle cx="12" cy="12" r="5" />,
};

export function Icon({ name, className }: { name: IconName; className?: string }) {
  return (
    <svg
      className={`icon${className ? ` ${className}` : ''}`}
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      fill="none"
      stroke="currentColor"
      strokeWidth="2.5"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {SHAPES[name]}
    </svg>
  );
}
