import { Fragment, useEffect, useRef, useState, type FormEvent } from 'react';
import type { Lang } from '../../electron/shared/lang.ts';
import type { PosSetup, ProbeProblem } from '../../electron/shared/setup-bridge.ts';
import { Card } from '../components/Card.tsx';
import { Submit } from '../components/Field.tsx';
import { FormError } from '../components/FormError.tsx';
import { translate, type TextKey } from '../lib/i18n.ts';

declare global {
  interface Window {
    posSetup?: PosSetup;
  }
}

type Problem = ProbeProblem | 'changed';

/**
 * A till that connects to the store (Electron, connect mode), before it knows which: the
 * person types the store's address, main reads the certificate there, and the person compares
 * its fingerprint with the store's Devices screen before anything is trusted or saved.
 */
export function SetupScreen({ lang }: { lang: Lang }) {
  const t = (key: TextKey, params?: Record<string, string>) => translate(lang, key, params);
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [probed, setProbed] = useState<{ origin: string; fingerprint: string } | null>(null);
  const addressRef = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (probed === null) addressRef.current?.focus();
  }, [probed]);

  const read = async (e: FormEvent) => {
    e.preventDefault();
    if (!window.posSetup) return;
    setBusy(true);
    setProblem(null);
    try {
      const result = await window.posSetup.probe(address);
      if (result.ok) setProbed({ origin: result.origin, fingerprint: result.fingerprint });
      else setProblem(result.problem);
    } finally {
      setBusy(false);
    }
  };

  const confirm = async () => {
    if (!window.posSetup || probed === null) return;
    setBusy(true);
    try {
      // On success main replaces this window with the store's page.
      if (!(await window.posSetup.confirm(probed.origin, probed.fingerprint))) {
        setProbed(null);
        setProblem('changed');
      }
    } finally {
      setBusy(false);
    }
  };

  const shown = problem === null ? null : t(`setup.problem.${problem}`);
  return (
    <main className="app-main">
      <Card id="setup" heading={t('setup.title')} className="sign-in">
        {probed === null ? (
          <form onSubmit={(e) => void read(e)} noValidate>
            <p className="help">{t('setup.help')}</p>
            <div className="field">
              <label htmlFor="setup-address">{t('setup.address')}</label>
              <input id="setup-address" ref={addressRef} value={address} maxLength={300} autoComplete="off" spellCheck={false} placeholder="https://192.168.0.10:5180" onChange={(e) => setAddress(e.target.value)} />
            </div>
            <Submit disabled={busy || address.trim() === ''}>{t('setup.read')}</Submit>
          </form>
        ) : (
          <div>
            <h3>{t('setup.checkHeading')}</h3>
            <p className="help">{t('setup.checkHelp', { origin: probed.origin })}</p>
            <div className="field">
              <span>{t('setup.fingerprint')}</span>
              <code className="notice fingerprint" aria-label={t('setup.fingerprint')}>
                {/* Lines break between pairs only, so each pair reads as the Devices screen writes it. */}
                {probed.fingerprint.split(':').map((pair, i) => (
                  <Fragment key={i}>
                    {i > 0 && ':'}
                    {i > 0 && <wbr />}
                    {pair}
                  </Fragment>
                ))}
              </code>
            </div>
            <div className="actions">
              <button type="button" className="primary" disabled={busy} onClick={() => void confirm()}>
                {t('setup.matches')}
              </button>
              <button type="button" className="secondary" disabled={busy} onClick={() => setProbed(null)}>
                {t('setup.differs')}
              </button>
            </div>
          </div>
        )}
        <FormError text={shown} />
      </Card>
    </main>
  );
}
