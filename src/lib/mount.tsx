import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';

/** Renders a page's root component into its `#root` (`page` names the HTML file when it has none). */
export function mount(page: string, element: ReactNode): void {
  const root = document.getElementById('root');
  if (!root) throw new Error(`${page} has no #root element`);
  createRoot(root).render(<StrictMode>{element}</StrictMode>);
}
