import { useEffect } from 'react';
import { mount } from './lib/mount.tsx';
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

mount('display.html', <DisplayRoot />);
