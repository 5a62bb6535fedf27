import { App } from './App.tsx';
import { mount } from './lib/mount.tsx';
import './styles.css';

mount('index.html', <App />);
