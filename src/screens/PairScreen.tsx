import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Card } from '../components/Card.tsx';
import { Field, Submit } from '../components/Field.tsx';
import { FormError } from '../components/FormError.tsx';
import { Icon } from '../components/Icon.tsx';
import { errorText } from '../lib/errorText.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useDevice } from '../stores/device.ts';
import { usePick } from '../stores/pick.ts';

/** 8 digits, typed with or without a space or a dash between the halves (the core reads them the same). */
const CODE_SHAPE = /^\d{4}[\s-]?\d{4}$/;

/**
 * What a till or a customer display shows while it is not paired with the store: where to get
 * a pairing code and the field to enter it. Operators sign in only once it is paired.
 *
 * Issue 25, point 5: pairing says only what it can prove. A page cannot see the certificate
 * it was served with, so a fingerprint the same server sends would be shown just as well by
 * an impostor: over https this screen shows none, and says how to compare the certificate in
 * the browser's own viewer, or that no warning at all means the store's CA vouched for it.
 * (The Electron till compares and pins the certificate itself, before this page loads.)
 */
export function PairScreen() {
  const t = useText();
  const lang = useLang();
  const { online, pairing, pairError, reason, pair } = usePick(useDevice, 'online', 'pairing', 'pairError', 'reason', 'pair');
  const [code, setCode] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  // Plain http is the store computer's own loopback, where there is no certificate to speak of.
  const secure = typeof location !== 'undefined' && location.protocol === 'https:';
  const codeRef = useRef<HTMLInputElement>(null);
  useEffect(() => codeRef.current?.focus(), []);
  useEffect(() => {
    document.title = `${t('pair.heading')} · ${t('app.title')}`;
  }, [t]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!CODE_SHAPE.test(code.trim())) {
      setProblem(t('pair.codeShape'));
      return;
    }
    setProblem(null);
    if (await pair(code)) setCode('');
  };
  const shown = problem ?? (pairError ? errorText(lang, pairError) : null);
  return (
    <Card id="pair" heading={t('pair.heading')} className="sign-in pair">
      {reason === 'revoked' && (
        <p className="notice" role="alert" data-testid="pair-revoked">
          <Icon name="alert" /> {t('pair.revoked')}
        </p>
      )}
      {reason === 'unknown' && (
        <p className="notice" data-testid="pair-unknown">
          <Icon name="alert" /> {t('pair.unknown')}
        </p>
      )}
      <p className="help">{t('pair.askManager')}</p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="pair-code" label={t('pair.code')}>
          <input
            id="pair-code"
            ref={codeRef}
            className="pair-code-input"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={9}
            placeholder="1234 5678"
            aria-describedby="pair-code-help"
            aria-invalid={shown !== null || undefined}
            value={code}
            onChange={(e) => {
              setCode(e.target.value);
              setProblem(null);
            }}
          />
          <p id="pair-code-help" className="help">
            {t('pair.codeHelp')}
          </p>
        </Field>
        <Submit disabled={pairing || !online}>{t('pair.button')}</Submit>
        <FormError text={shown} testId="pair-error" />
      </form>
      {secure && (
        <div className="pair-certificate" data-testid="pair-certificate">
          <h3>{t('pair.certificateHeading')}</h3>
          <p className="help">{t('pair.certificateCheck')}</p>
          <p className="help">{t('pair.certificateCa')}</p>
        </div>
      )}
    </Card>
  );
}
