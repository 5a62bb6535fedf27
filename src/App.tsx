import { useEffect } from 'react';
import { LanguageSelect } from './components/LanguageSelect.tsx';
import { StatusBar } from './components/StatusBar.tsx';
import { TerminalFooter } from './components/TerminalFooter.tsx';
import { ROUTE_ROLE, routeHref, routesFor, type Route } from './lib/route.ts';
import type { TextKey } from './lib/i18n.ts';
import { getBridge } from './lib/bridge.ts';
import { watchIdle } from './lib/idleLock.ts';
import { unlockAudio } from './lib/sound.ts';
import { useRoute } from './lib/useRoute.ts';
import { useText } from './lib/useText.ts';
import { CashierScreen } from './screens/CashierScreen.tsx';
import { DevicesScreen } from './screens/DevicesScreen.tsx';
import { DisplayScreen } from './screens/DisplayScreen.tsx';
import { FloorBoardScreen } from './screens/FloorBoardScreen.tsx';
import { JournalScreen } from './screens/JournalScreen.tsx';
import { OperatorsScreen } from './screens/OperatorsScreen.tsx';
import { PairScreen } from './screens/PairScreen.tsx';
import { SettingsScreen } from './screens/SettingsScreen.tsx';
import { SignInScreen } from './screens/SignInScreen.tsx';
import { ClaimsScreen } from './screens/ClaimsScreen.tsx';
import { SettlementsScreen } from './screens/SettlementsScreen.tsx';
import { StoresScreen } from './screens/StoresScreen.tsx';
import { connectAuth, selectRole, useAuth } from './stores/auth.ts';
import { connectAttention } from './stores/attention.ts';
import { connectCheckout, connectOutcomeSounds } from './stores/checkout.ts';
import { connectDevice, useDevice } from './stores/device.ts';
import { connectStatus, useStatus } from './stores/status.ts';

const NAV: Record<Route, TextKey> = { cashier: 'nav.cashier', journal: 'nav.journal', settings: 'nav.settings', operators: 'nav.operators', devices: 'nav.devices', stores: 'nav.stores', claims: 'nav.claims', settlements: 'nav.settlements', board: 'nav.board' };

/** Who is signed in on this window, and the way out. */
function SignedIn() {
  const t = useText();
  const operator = useAuth((s) => s.auth?.operator ?? null);
  const signOut = useAuth((s) => s.signOut);
  if (!operator) return null;
  return (
    <div className="signed-in">
      <span data-testid="signed-in" aria-label={t('auth.signedInLabel')}>
        {t('auth.signedInAs', { name: operator.name, role: t(`role.${operator.role}`) })}
      </span>
      <button type="button" className="secondary" onClick={() => void signOut('by_hand')}>
        {t('auth.signOut')}
      </button>
    </div>
  );
}

/** Which paired till this is, beside the title (the store computer's own window says nothing). */
function DeviceName() {
  const t = useText();
  const device = useDevice((s) => s.device);
  if (!device) return null;
  return (
    <span className="device-name" data-testid="device-name">
      {t('footer.device', { name: device.name, store: device.storeId, checkout: device.checkoutId })}
    </span>
  );
}

/** The connection's state while it is not open (an unpaired page has no status to show). */
function ConnectionLine() {
  const connection = useStatus((s) => s.connection);
  if (connection === 'open') return null;
  return (
    <div className="status-line no-print">
      <StatusBar />
    </div>
  );
}

export function App() {
  const t = useText();
  const lang = useStatus((s) => s.lang);
  const route = useRoute();
  const auth = useAuth((s) => s.auth);
  const role = useAuth(selectRole);
  const lockMinutes = auth?.lockMinutes ?? 0;
  const deviceConnection = useDevice((s) => s.connection);
  const deviceKind = useDevice((s) => s.device?.kind ?? null);
  useEffect(() => {
    // First: the other stores ask the core only what this kind of connection may ask.
    const offDevice = connectDevice();
    const offStatus = connectStatus();
    const offAuth = connectAuth();
    const offCheckout = connectCheckout();
    const offSounds = connectOutcomeSounds();
    const offAttention = connectAttention();
    // Browsers start audio only after a gesture: the first key or tap of the day unlocks it.
    window.addEventListener('pointerdown', unlockAudio);
    window.addEventListener('keydown', unlockAudio);
    return () => {
      offStatus();
      offAuth();
      offCheckout();
      offSounds();
      offAttention();
      offDevice();
      window.removeEventListener('pointerdown', unlockAudio);
      window.removeEventListener('keydown', unlockAudio);
    };
  }, []);
  // The till locks itself after the idle minutes; a pending sale goes on in the core meanwhile.
  useEffect(() => {
    if (role === null) return;
    return watchIdle({
      minutes: lockMinutes,
      target: window,
      onIdle: () => void useAuth.getState().signOut('idle'),
      // The core signs out on its own idle limit unless told of a person here (issue 25).
      onActivity: () => void getBridge().call('auth.active').catch(() => undefined),
    });
  }, [role, lockMinutes]);
  useEffect(() => {
    if (deviceConnection === 'unpaired' || deviceKind === 'display') return;
    document.documentElement.lang = lang;
    document.title = `${role === null ? t(auth?.setup ? 'auth.createHeading' : 'auth.signInHeading') : t(NAV[route])} · ${t('app.title')}`;
  }, [lang, t, route, role, auth?.setup, deviceConnection, deviceKind]);

  // A paired customer display shows the display, at any address of the store.
  if (deviceConnection === 'device' && deviceKind === 'display') return <DisplayScreen />;
  if (deviceConnection === 'unpaired') {
    // Not paired (or revoked): nothing of the store but the way to pair.
    return (
      <div className="app">
        <header className="app-header no-print">
          <h1>{t('app.title')}</h1>
        </header>
        <ConnectionLine />
        <main className="app-main">
          <PairScreen />
        </main>
      </div>
    );
  }

  const allowed = routesFor(role);
  let screen;
  if (auth === null) screen = null;
  else if (role === null) screen = <SignInScreen />;
  else if (!allowed.includes(route)) {
    screen = (
      <p className="card error" role="alert" data-testid="route-forbidden">
        {t(ROUTE_ROLE[route] === 'manager' ? 'route.forbidden.manager' : 'route.forbidden.supervisor')}
      </p>
    );
  } else if (route === 'cashier') screen = <CashierScreen />;
  else if (route === 'journal') screen = <JournalScreen />;
  else if (route === 'settings') screen = <SettingsScreen />;
  else if (route === 'devices') screen = <DevicesScreen />;
  else if (route === 'stores') screen = <StoresScreen />;
  else if (route === 'claims') screen = <ClaimsScreen />;
  else if (route === 'settlements') screen = <SettlementsScreen />;
  else if (route === 'board') screen = <FloorBoardScreen />;
  else screen = <OperatorsScreen />;

  return (
    <div className="app">
      <header className="app-header no-print">
        <h1>{t('app.title')}</h1>
        <DeviceName />
        <nav aria-label={t('nav.label')} className="app-nav">
          {allowed.map((r) => (
            <a key={r} href={routeHref(r)} className="nav-link" aria-current={r === route ? 'page' : undefined}>
              {t(NAV[r])}
            </a>
          ))}
        </nav>
      </header>
      {/* Issue 26: who is signed in and the language sit beside the status, so the header's row
          is the title and every screen, whole, at 1024 px. */}
      <div className="status-line no-print">
        <StatusBar />
        <div className="session">
          <SignedIn />
          <LanguageSelect />
        </div>
      </div>
      <main className="app-main">{screen}</main>
      <div className="no-print">
        <TerminalFooter />
      </div>
    </div>
  );
}
