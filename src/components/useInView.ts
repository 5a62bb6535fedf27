import { useEffect, type RefObject } from 'react';

/**
 * A form just opened shows its end, where its main button is (issue 26): the page scrolls
 * down just enough when the form opened below the fold, and not at all when it is in view.
 */
export function useInView(ref: RefObject<HTMLElement | null>, shown = true): void {
  useEffect(() => {
    const el = ref.current;
    if (!shown || !el) return;
    const below = el.getBoundingClientRect().bottom - window.innerHeight;
    if (below > 0) window.scrollBy({ top: below + 16, behavior: 'instant' });
  }, [ref, shown]);
}
