import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { DisplayScreen } from './screens/DisplayScreen.tsx';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('display.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <DisplayScreen />
  </StrictMode>,
);
