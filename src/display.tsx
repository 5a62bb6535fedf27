import { StrictMode, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { DisplayScreen } from './screens/DisplayScreen.tsx';
import { PairScreen } from './screens/PairScreen.tsx';
import { connectDevice, useDevice } from './stores/device.ts';
import './styles.css';

/** The customer display page: its screen once paired (or the store's own), else Pair this till. */
function DisplayRoot() {
  const connection = useDevice((s) => s.connection);
  useEffect(() => connectDevice(), []);
  if (connection === 'unpaired') {
    return (
      <main className="app-main">
        <PairScreen />
      </main>
    );
  }
  return <DisplayScreen />;
}

const root = document.getElementById('root');
if (!root) throw new Error('display.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <DisplayRoot />
  </StrictMode>,
);
