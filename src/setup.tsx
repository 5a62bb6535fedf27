import { isLang } from '../electron/shared/lang.ts';
import { mount } from './lib/mount.tsx';
import { SetupScreen } from './screens/SetupScreen.tsx';
import './styles.css';

/** Connect mode's setup page (Electron only): main passes the language in the query, as it has no core to ask. */
const asked = new URLSearchParams(location.search).get('lang');
const lang = isLang(asked) ? asked : 'pt-BR';
document.documentElement.lang = lang;
mount('setup.html', <SetupScreen lang={lang} />);
