import { useEffect, useState, type FormEvent } from 'react';
import { ROLES, type OperatorView, type Role } from '../../electron/core/contract.ts';
import { Card } from '../components/Card.tsx';
import { Confirm } from '../components/Confirm.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Field, fieldProblemProps, focusFirstProblem, PinField, Submit } from '../components/Field.tsx';
import { ErrorAlert, ResultLine } from '../components/FormError.tsx';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import { formatDateTime, formatTime } from '../lib/i18n.ts';
import { operatorFormProblems } from '../lib/operatorForm.ts';
import { pinFieldProblems } from '../lib/pinForm.ts';
import { useRunner } from '../lib/useRunner.ts';
import { useLang, useText } from '../lib/useText.ts';

function RoleSelect({ id, value, onChange }: { id: string; value: Role; onChange: (role: Role) => void }) {
  const t = useText();
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value as Role)}>
      {ROLES.map((r) => (
        <option key={r} value={r}>
          {t(`role.${r}`)}
        </option>
      ))}
    </select>
  );
}

/**
 * A manager's screen: every operator of the till (disabled ones stay listed: nothing is
 * deleted), **Add operator**, and per operator a change of role or PIN, or disabling them
 * behind a confirmation that says it cannot be undone.
 */
export function OperatorsScreen() {
  const t = useText();
  const lang = useLang();
  const [operators, setOperators] = useState<OperatorView[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const load = async () => {
    try {
      setOperators(await getBridge().call('operators.list'));
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(lang, toUiError(err)));
    }
  };
  useEffect(() => {
    void load();
  }, []);

  return (
    <div className="operators">
      <Card id="operators" heading={t('operators.heading')}>
        {loadError && <ErrorAlert>{loadError}</ErrorAlert>}
        {operators && (
          <DataTable
            className="operators-table"
            headers={[t('operators.name'), t('operators.role'), t('operators.state'), t('operators.actions')]}
            rows={operators}
            row={(o) => <OperatorRow key={o.id} operator={o} onChanged={load} />}
          />
        )}
      </Card>
      <AddOperator onAdded={load} />
    </div>
  );
}

function AddOperator({ onAdded }: { onAdded: () => Promise<void> }) {
  const t = useText();
  const [name, setName] = useState('');
  const [role, setRole] = useState<Role>('cashier');
  const [pin, setPin] = useState('');
  const [repeat, setRepeat] = useState('');
  /** Whether Save was pressed: from then on each field says what is wrong with it as it is typed. */
  const [checked, setChecked] = useState(false);
  const { busy, result, run } = useRunner();
  const problems = checked ? operatorFormProblems({ name, pin, repeat }) : {};
  const problem = (field: 'name' | 'pin' | 'repeat') => {
    const key = problems[field];
    return key ? t(key) : null;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (focusFirstProblem('add-operator', ['name', 'pin', 'repeat'], operatorFormProblems({ name, pin, repeat }))) return;
    const added = await run(
      async () => {
        const operator = await getBridge().call('operators.add', { name: name.trim(), role, pin });
        setName('');
        setPin('');
        setRepeat('');
        setRole('cashier');
        setChecked(false);
        return operator;
      },
      (operator) => t('operators.added', { name: operator.name }),
    );
    if (added) await onAdded();
  };
  const nameProblem = problem('name');
  return (
    <Card id="add-operator" heading={t('operators.add')}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="add-operator-name" label={t('operators.name')} problem={nameProblem}>
          {/* No maxLength: a longer name is said so beside the field, never cut. */}
          <input id="add-operator-name" value={name} autoComplete="off" onChange={(e) => setName(e.target.value)} {...fieldProblemProps('add-operator-name', nameProblem)} />
        </Field>
        <Field id="add-operator-role" label={t('operators.role')}>
          <RoleSelect id="add-operator-role" value={role} onChange={setRole} />
        </Field>
        <PinField id="add-operator-pin" label={t('operators.pin')} autoComplete="new-password" value={pin} onChange={setPin} problem={problem('pin')} />
        <PinField id="add-operator-repeat" label={t('auth.repeatPin')} autoComplete="new-password" value={repeat} onChange={setRepeat} problem={problem('repeat')} />
        <Submit disabled={busy}>{t('operators.save')}</Submit>
        <ResultLine result={result} />
      </form>
    </Card>
  );
}

function OperatorRow({ operator, onChanged }: { operator: OperatorView; onChanged: () => Promise<void> }) {
  const t = useText();
  const lang = useLang();
  const [editing, setEditing] = useState(false);
  const [asking, setAsking] = useState(false);
  const [role, setRole] = useState<Role>(operator.role);
  const [pin, setPin] = useState('');
  const [repeat, setRepeat] = useState('');
  /** Whether Save was pressed: from then on the PIN fields say what is wrong as they are typed. */
  const [checked, setChecked] = useState(false);
  const { busy, result, run: runner } = useRunner();
  const id = `operator-${operator.id}`;
  const pinProblems = checked ? pinFieldProblems(pin, repeat, { optional: true }) : {};

  const run = async (call: () => Promise<unknown>, done: string) => {
    const changed = await runner(
      async () => {
        await call();
        setEditing(false);
        setAsking(false);
        setPin('');
        setRepeat('');
        setChecked(false);
        return true;
      },
      () => done,
    );
    if (changed) await onChanged();
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (focusFirstProblem(id, ['pin', 'repeat'], pinFieldProblems(pin, repeat, { optional: true }))) return;
    const patch = { ...(role !== operator.role ? { role } : {}), ...(pin === '' ? {} : { pin }) };
    if (Object.keys(patch).length === 0) return setEditing(false);
    void run(() => getBridge().call('operators.change', { operatorId: operator.id, ...patch }), t('operators.saved', { name: operator.name }));
  };
  return (
    <tr data-operator={operator.name} className={operator.disabled ? 'muted' : undefined}>
      <th scope="row">
        {operator.name}
        <span className="muted"> · {t('operators.addedBy', { by: operator.created_by, at: formatDateTime(lang, operator.created_at) })}</span>
      </th>
      <td>{t(`role.${operator.role}`)}</td>
      <td>
        {operator.disabled
          ? t('operators.disabled')
          : operator.needs_unlock
            ? t('operators.needsUnlock')
            : operator.locked_until !== null
              ? t('operators.lockedUntil', { at: formatTime(lang, operator.locked_until as number) })
              : t('operators.active')}
      </td>
      <td>
        {!operator.disabled && !editing && !asking && (
          <div className="actions">
            <button type="button" className="secondary" aria-label={t('operators.changeLabel', { name: operator.name })} onClick={() => setEditing(true)}>
              {t('operators.change')}
            </button>
            {(operator.needs_unlock || operator.locked_until !== null) && (
              <button
                type="button"
                className="secondary"
                aria-label={t('operators.unlockLabel', { name: operator.name })}
                disabled={busy}
                onClick={() => void run(() => getBridge().call('operators.unlock', { operatorId: operator.id }), t('operators.unlocked', { name: operator.name }))}
              >
                {t('operators.unlock')}
              </button>
            )}
            <button type="button" className="danger" aria-label={t('operators.disableLabel', { name: operator.name })} onClick={() => setAsking(true)}>
              {t('operators.disable')}
            </button>
          </div>
        )}
        {editing && (
          <form onSubmit={save} noValidate aria-label={t('operators.changeLabel', { name: operator.name })}>
            <Field id={`${id}-role`} label={t('operators.role')}>
              <RoleSelect id={`${id}-role`} value={role} onChange={setRole} />
            </Field>
            <PinField id={`${id}-pin`} label={t('operators.newPin')} autoComplete="new-password" value={pin} onChange={setPin} problem={pinProblems.pin ? t(pinProblems.pin) : null} />
            <PinField
              id={`${id}-repeat`}
              label={t('operators.repeatNewPin')}
              autoComplete="new-password"
              value={repeat}
              onChange={setRepeat}
              problem={pinProblems.repeat ? t(pinProblems.repeat) : null}
            />
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setEditing(false)}>
                {t('operators.cancel')}
              </button>
              <Submit disabled={busy}>{t('operators.save')}</Submit>
            </div>
          </form>
        )}
        {asking && (
          <Confirm
            id={`${id}-confirm`}
            title={t('operators.disableTitle', { name: operator.name })}
            body={t('operators.disableBody', { name: operator.name })}
            keep={t('operators.disableNo', { name: operator.name })}
            go={t('operators.disableLabel', { name: operator.name })}
            busy={busy}
            onKeep={() => setAsking(false)}
            onGo={() => void run(() => getBridge().call('operators.disable', { operatorId: operator.id }), t('operators.disabled'))}
          />
        )}
        <ResultLine result={result} />
      </td>
    </tr>
  );
}
