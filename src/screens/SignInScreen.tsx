import { useEffect, useRef, useState, type FormEvent } from 'react';
import { Card } from '../components/Card.tsx';
import { Field, PinField, Submit } from '../components/Field.tsx';
import { FormError } from '../components/FormError.tsx';
import { errorText } from '../lib/errorText.ts';
import { formatTime } from '../lib/i18n.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useAuth } from '../stores/auth.ts';
import { usePick } from '../stores/pick.ts';

/** The core checks it too (handlers.ts): this only says so beside the field, before sending. */
const PIN_SHAPE = /^\d{4,8}$/;

/**
 * What stands in front of every screen: at the first start **Create the first manager**, who
 * is then signed in; afterwards **Sign in**. Errors are sentences beside the form.
 */
export function SignInScreen() {
  const setup = useAuth((s) => s.auth?.setup ?? false);
  return setup ? <CreateFirstManager /> : <SignIn />;
}

/**
 * The name and PIN being typed, the name focused first, and the first thing wrong with them,
 * said beside the form before anything is sent.
 */
function useNameAndPin() {
  const t = useText();
  const [name, setName] = useState('');
  const [pin, setPin] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const nameRef = useRef<HTMLInputElement>(null);
  useEffect(() => nameRef.current?.focus(), []);
  /** `more`: what else is wrong once the name and the PIN's shape are right. True when nothing is. */
  const check = (more: string | null = null): boolean => {
    const found = name.trim() === '' ? t('auth.needName') : PIN_SHAPE.test(pin) ? more : t('auth.pinRule');
    setProblem(found);
    return found === null;
  };
  return { name, setName, pin, setPin, problem, nameRef, check };
}

function CreateFirstManager() {
  const t = useText();
  const lang = useLang();
  const { busy, error, createFirstManager } = usePick(useAuth, 'busy', 'error', 'createFirstManager');
  const { name, setName, pin, setPin, problem, nameRef, check } = useNameAndPin();
  const [repeat, setRepeat] = useState('');

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (check(pin !== repeat ? t('auth.pinsDiffer') : null)) await createFirstManager(name, pin);
  };
  const shown = problem ?? (error ? errorText(lang, error) : null);
  return (
    <Card id="create" heading={t('auth.createHeading')} className="sign-in">
      <p className="help">{t('auth.createHelp')}</p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="create-name" label={t('auth.name')}>
          <input id="create-name" ref={nameRef} value={name} maxLength={80} autoComplete="off" onChange={(e) => setName(e.target.value)} />
        </Field>
        <PinField id="create-pin" label={t('auth.pin')} autoComplete="new-password" value={pin} onChange={setPin} />
        <PinField id="create-repeat" label={t('auth.repeatPin')} autoComplete="new-password" value={repeat} onChange={setRepeat} />
        <Submit disabled={busy}>{t('auth.create')}</Submit>
        <FormError text={shown} />
      </form>
    </Card>
  );
}

function SignIn() {
  const t = useText();
  const lang = useLang();
  const { busy, error, idleLockedAfter, signIn } = usePick(useAuth, 'busy', 'error', 'idleLockedAfter', 'signIn');
  // Why the core ended the last sign-in here, when it did (issue 25).
  const ended = useAuth((s) => (s.auth?.operator === null ? s.auth.ended : null));
  const lockMinutes = useAuth((s) => s.auth?.lockMinutes ?? 0);
  const { name, setName, pin, setPin, problem, nameRef, check } = useNameAndPin();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!check()) return;
    // A PIN is never kept on screen after an attempt, right or wrong.
    const ok = await signIn(name, pin);
    setPin('');
    if (ok) setName('');
  };
  const until = error?.code === 'sign_in_refused' && error.params?.reason === 'locked' && typeof error.params.until === 'string' ? error.params.until : null;
  const forManager = error?.code === 'sign_in_refused' && error.params?.reason === 'locked_for_manager';
  const shown = problem ?? (until ? t('auth.locked', { at: formatTime(lang, until) }) : forManager ? t('auth.lockedForManager') : error ? errorText(lang, error) : null);
  const idleAfter = idleLockedAfter ?? (ended === 'idle' ? lockMinutes : null);
  return (
    <Card id="sign-in" heading={t('auth.signInHeading')} className="sign-in">
      {idleAfter !== null && <p className="help">{t('auth.idleLocked', { minutes: idleAfter })}</p>}
      {(ended === 'operator_changed' || ended === 'operator_disabled') && <p className="help">{t('auth.endedByManager')}</p>}
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="sign-in-name" label={t('auth.name')}>
          <input id="sign-in-name" ref={nameRef} value={name} maxLength={80} autoComplete="username" onChange={(e) => setName(e.target.value)} />
        </Field>
        <PinField id="sign-in-pin" label={t('auth.pin')} autoComplete="current-password" value={pin} onChange={setPin} />
        <Submit disabled={busy}>{t('auth.signIn')}</Submit>
        <FormError text={shown} />
      </form>
    </Card>
  );
}
