import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { isLang } from '../electron/shared/lang.ts';
import { SetupScreen } from './screens/SetupScreen.tsx';
import './styles.css';

/** Connect mode's setup page (Electron only): main passes the language in the query, as it has no core to ask. */
const root = document.getElementById('root');
if (!root) throw new Error('setup.html has no #root element');
const asked = new URLSearchParams(location.search).get('lang');
const lang = isLang(asked) ? asked : 'pt-BR';
document.documentElement.lang = lang;
createRoot(root).render(
  <StrictMode>
    <SetupScreen lang={lang} />
  </StrictMode>,
);
