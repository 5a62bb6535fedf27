import { useEffect } from 'react';
import { StatusBar } from './components/StatusBar.tsx';
import { useText } from './lib/useText.ts';
import { StatusScreen } from './screens/StatusScreen.tsx';
import { connectStatus, useStatus } from './stores/status.ts';

export function App() {
  const t = useText();
  const lang = useStatus((s) => s.lang);
  useEffect(() => connectStatus(), []);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = t('app.title');
  }, [lang, t]);

  return (
    <div className="app">
      <header className="app-header">
        <h1>{t('app.title')}</h1>
        <StatusBar />
      </header>
      <main className="app-main">
        <StatusScreen />
      </main>
    </div>
  );
}
