import { useEffect } from 'react';
import { LanguageSelect } from './components/LanguageSelect.tsx';
import { StatusBar } from './components/StatusBar.tsx';
import { TerminalFooter } from './components/TerminalFooter.tsx';
import { ROUTES, routeHref, type Route } from './lib/route.ts';
import type { TextKey } from './lib/i18n.ts';
import { unlockAudio } from './lib/sound.ts';
import { useRoute } from './lib/useRoute.ts';
import { useText } from './lib/useText.ts';
import { CashierScreen } from './screens/CashierScreen.tsx';
import { JournalScreen } from './screens/JournalScreen.tsx';
import { SettingsScreen } from './screens/SettingsScreen.tsx';
import { connectCheckout, connectOutcomeSounds } from './stores/checkout.ts';
import { connectStatus, useStatus } from './stores/status.ts';

const NAV: Record<Route, TextKey> = { cashier: 'nav.cashier', journal: 'nav.journal', settings: 'nav.settings' };

export function App() {
  const t = useText();
  const lang = useStatus((s) => s.lang);
  const route = useRoute();
  useEffect(() => {
    const offStatus = connectStatus();
    const offCheckout = connectCheckout();
    const offSounds = connectOutcomeSounds();
    // Browsers start audio only after a gesture: the first key or tap of the day unlocks it.
    window.addEventListener('pointerdown', unlockAudio);
    window.addEventListener('keydown', unlockAudio);
    return () => {
      offStatus();
      offCheckout();
      offSounds();
      window.removeEventListener('pointerdown', unlockAudio);
      window.removeEventListener('keydown', unlockAudio);
    };
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = `${t(NAV[route])} · ${t('app.title')}`;
  }, [lang, t, route]);

  return (
    <div className="app">
      <header className="app-header no-print">
        <h1>{t('app.title')}</h1>
        <nav aria-label={t('nav.label')} className="app-nav">
          {ROUTES.map((r) => (
            <a key={r} href={routeHref(r)} className="nav-link" aria-current={r === route ? 'page' : undefined}>
              {t(NAV[r])}
            </a>
          ))}
        </nav>
        <LanguageSelect />
      </header>
      <div className="status-line no-print">
        <StatusBar />
      </div>
      <main className="app-main">
        {route === 'cashier' && <CashierScreen />}
        {route === 'journal' && <JournalScreen />}
        {route === 'settings' && <SettingsScreen />}
      </main>
      <div className="no-print">
        <TerminalFooter />
      </div>
    </div>
  );
}
