import type { ReactNode } from 'react';

/** A card of a screen: a section named by its heading, so a screen reader can list and jump to it. */
export function Card({ id, heading, className, children }: { id: string; heading: ReactNode; className?: string; children: ReactNode }) {
  return (
    <section className={className ? `card ${className}` : 'card'} aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{heading}</h2>
      {children}
    </section>
  );
}
