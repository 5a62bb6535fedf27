import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { OfficeCheckout, Poster, PrintedQrList, Store, StoreField, WalletChoice } from '../../electron/core/contract.ts';
import { Ids } from '../components/Ids.tsx';
import { Card } from '../components/Card.tsx';
import { Confirm } from '../components/Confirm.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Field, fieldProblemProps, focusFirstProblem, Submit } from '../components/Field.tsx';
import { ErrorAlert } from '../components/FormError.tsx';
import { Icon } from '../components/Icon.tsx';
import { CustomerLangField, QrPoster } from '../components/QrPoster.tsx';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { errorText } from '../lib/errorText.ts';
import type { TextKey } from '../lib/i18n.ts';
import { checkoutFormProblems } from '../lib/checkoutForm.ts';
import { storeFormProblems, type ClearableStoreField, type StoreFormField, type StoreFormFields } from '../lib/storeForm.ts';
import { useRunner, type Result } from '../lib/useRunner.ts';
import { formatCount } from '../lib/format.ts';
import { useLang, useText } from '../lib/useText.ts';

function ResultLine({ result, children }: { result: Result; children?: ReactNode }) {
  return (
    <div aria-live="polite" className={result ? (result.ok ? 'good' : 'error') : ''}>
      {result && (
        <p role={result.ok ? undefined : 'alert'}>
          <Icon name={result.ok ? 'check' : 'cross'} /> {result.text}
        </p>
      )}
      {children}
    </div>
  );
}

const STORE_FIELD_TEXT = { store_name: 'stores.name', address: 'stores.address', phone_number: 'stores.phone', email: 'stores.email' } as const;

/**
 * A manager's back office (issue 10): the merchant's stores with every field of reference
 * 2.1, New store, editing with the PATCH rules of 4.1; a store's checkouts with their wallet
 * and QR mode, Add checkout, Change wallet behind the confirmation of 4.2, Print QR poster
 * and the two modes of 4.3; and the Printed QRs list. The core holds every rule and the token.
 */
export function StoresScreen() {
  const t = useText();
  const lang = useLang();
  const [stores, setStores] = useState<Store[] | null>(null);
  const [wallets, setWallets] = useState<WalletChoice[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [openStore, setOpenStore] = useState<number | null>(null);
  const [editing, setEditing] = useState<number | null>(null);
  const [poster, setPoster] = useState<Poster | null>(null);
  const [printedVersion, setPrintedVersion] = useState(0);
  const [customerLangVersion, setCustomerLangVersion] = useState(0);
  const load = async () => {
    try {
      const [s, w] = await Promise.all([getBridge().call('office.stores'), getBridge().call('office.wallets')]);
      setStores(s);
      setWallets(w);
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(lang, toUiError(err)));
    }
  };
  useEffect(() => {
    void load();
  }, []);
  const hidden = poster ? 'no-print' : undefined;
  const current = stores?.find((s) => s.store_id === openStore) ?? null;
  const edited = stores?.find((s) => s.store_id === editing) ?? null;

  return (
    <div className="stores">
      {poster && (
        <QrPoster
          poster={poster}
          customerLangVersion={customerLangVersion}
          onPoster={setPoster}
          onClose={() => {
            setPoster(null);
          }}
        />
      )}
      <section className={`card ${hidden ?? ''}`} aria-labelledby="stores-heading">
        <h2 id="stores-heading">{t('stores.heading')}</h2>
        {loadError && <ErrorAlert>{loadError}</ErrorAlert>}
        {stores && (
          <DataTable
            wrap
            className="report-table"
            columns={[
              {
                header: t('stores.name'),
                rowHeader: true,
                cell: (s) => (
                  <>
                    {s.store_name}{' '}
                    <span className="muted">
                      · {t('stores.number', { id: s.store_id })} · {t('stores.merchant', { id: s.merchant_id })}
                    </span>
                  </>
                ),
              },
              { header: t('stores.address'), cell: (s) => s.address || t('stores.unset') },
              { header: t('stores.phone'), cell: (s) => s.phone_number || t('stores.unset') },
              { header: t('stores.email'), cell: (s) => s.email || t('stores.unset') },
              {
                header: t('checkouts.actions'),
                cell: (s) => (
                  <div className="actions">
                    <button type="button" className="secondary" aria-label={t('stores.openLabel', { name: s.store_name })} onClick={() => setOpenStore(s.store_id)}>
                      {t('stores.open')}
                    </button>
                    <button type="button" className="secondary" aria-label={t('stores.editLabel', { name: s.store_name })} onClick={() => setEditing(s.store_id)}>
                      {t('stores.edit')}
                    </button>
                  </div>
                ),
              },
            ]}
            rows={stores}
            rowKey={(s) => s.store_id}
            rowAttributes={(s) => ({ 'data-store': s.store_id, 'aria-current': s.store_id === openStore ? 'true' : undefined })}
          />
        )}
      </section>
      {edited && (
        <div className={hidden}>
          <EditStore key={edited.store_id} store={edited} onDone={() => setEditing(null)} onSaved={load} />
        </div>
      )}
      <div className={hidden}>
        <NewStore
          onCreated={async (store) => {
            await load();
            setOpenStore(store.store_id);
          }}
        />
      </div>
      {current && (
        <div className={hidden}>
          <Checkouts
            key={current.store_id}
            store={current}
            wallets={wallets}
            onPoster={(p) => {
              setPoster(p);
              setPrintedVersion((v) => v + 1);
            }}
            onCustomerLang={() => setCustomerLangVersion((v) => v + 1)}
          />
        </div>
      )}
      <div className={hidden}>
        <PrintedQrs version={printedVersion} />
      </div>
    </div>
  );
}

/** An edit's choice to clear an optional field (issue 26), beside it; none on a new store. */
interface Clearing {
  /** The fields the store has a value in, with that value. */
  values: Partial<Record<ClearableStoreField, string>>;
  cleared: readonly ClearableStoreField[];
  onClear: (field: ClearableStoreField, clear: boolean) => void;
}

function StoreFields({
  prefix,
  form,
  set,
  problems,
  clearing,
}: {
  prefix: string;
  form: StoreFormFields;
  set: (f: StoreFormFields) => void;
  problems: Partial<Record<StoreFormField, TextKey>>;
  clearing?: Clearing;
}) {
  const t = useText();
  const fields = [
    ['name', 'stores.name', 'organization', 200, 'text'],
    ['address', 'stores.address', 'street-address', 200, 'text'],
    ['phone', 'stores.phone', 'tel', 50, 'tel'],
    ['email', 'stores.email', 'email', 200, 'email'],
  ] as const;
  return (
    <>
      {fields.map(([key, label, auto, max, type]) => {
        const id = `${prefix}-${key}`;
        const problemKey = problems[key];
        const problem = problemKey ? t(problemKey) : null;
        const current = key === 'name' ? undefined : clearing?.values[key];
        const cleared = key !== 'name' && (clearing?.cleared.includes(key) ?? false);
        return (
          <Field key={key} id={id} label={t(label)} problem={problem}>
            <input
              id={id}
              type={type}
              value={cleared ? '' : form[key]}
              maxLength={max}
              autoComplete={auto}
              disabled={cleared}
              {...fieldProblemProps(id, problem)}
              onChange={(e) => set({ ...form, [key]: e.target.value })}
            />
            {key !== 'name' && current !== undefined && clearing && (
              <label className="choice">
                <input
                  type="checkbox"
                  checked={cleared}
                  aria-label={t('stores.clearFieldLabel', { field: t(label) })}
                  onChange={(e) => clearing.onClear(key, e.target.checked)}
                />{' '}
                {t('stores.clearField')}
                {cleared && <span className="muted"> · {t('stores.clearHint', { value: current })}</span>}
              </label>
            )}
          </Field>
        );
      })}
    </>
  );
}

const EMPTY_STORE: StoreFormFields = { name: '', address: '', phone: '', email: '' };

function NewStore({ onCreated }: { onCreated: (store: Store) => Promise<void> }) {
  const t = useText();
  const [form, setForm] = useState(EMPTY_STORE);
  /** Whether Save was pressed: from then on each field says what is wrong with it as it is typed. */
  const [checked, setChecked] = useState(false);
  const { busy, result, run } = useRunner();
  const problems = checked ? storeFormProblems(form) : {};
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (Object.keys(storeFormProblems(form)).length > 0) return;
    const store = await run(
      () => getBridge().call('office.createStore', form),
      (s) => t('stores.created', { name: s.store_name }),
    );
    if (store) {
      setForm(EMPTY_STORE);
      setChecked(false);
      await onCreated(store);
    }
  };
  return (
    <Card id="new-store" heading={t('stores.new')}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <StoreFields prefix="new-store" form={form} set={setForm} problems={problems} />
        <Submit disabled={busy}>{t('stores.save')}</Submit>
        <ResultLine result={result} />
      </form>
    </Card>
  );
}

function EditStore({ store, onDone, onSaved }: { store: Store; onDone: () => void; onSaved: () => Promise<void> }) {
  const t = useText();
  // The form opens on the store's current values (issue 26), as the service lists them.
  const current: StoreFormFields = { name: store.store_name, address: store.address ?? '', phone: store.phone_number ?? '', email: store.email ?? '' };
  const [form, setForm] = useState(current);
  const [cleared, setCleared] = useState<ClearableStoreField[]>([]);
  const [checked, setChecked] = useState(false);
  const { busy, result, run } = useRunner();
  const fieldNames = (kept: StoreField[]) => kept.map((f) => t(STORE_FIELD_TEXT[f])).join(', ');
  // A cleared field is sent empty with its name in `clear`, so it has nothing to judge here:
  // the core judges the clear and checks the service's answer holds no value for it.
  const sent: StoreFormFields = { ...form, ...Object.fromEntries(cleared.map((f) => [f, ''])) };
  const problems = checked ? storeFormProblems(sent, current) : {};
  const values = Object.fromEntries((['address', 'phone', 'email'] as const).filter((f) => current[f] !== '').map((f) => [f, current[f]])) as Clearing['values'];
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (Object.keys(storeFormProblems(sent, current)).length > 0) return;
    const saved = await run(
      () => getBridge().call('office.changeStore', { storeId: store.store_id, ...sent, ...(cleared.length > 0 ? { clear: cleared } : {}) }),
      ({ store: s, kept, cleared: gone }) =>
        [t('stores.saved', { name: s.store_name }), ...(gone.length > 0 ? [t('stores.cleared', { fields: fieldNames(gone) })] : []), ...(kept.length > 0 ? [t('stores.kept', { fields: fieldNames(kept) })] : [])].join(' '),
    );
    if (saved) {
      setCleared([]);
      await onSaved();
    }
  };
  return (
    <Card id="edit-store" heading={t('stores.editLabel', { name: store.store_name })}>
      <p className="muted">{t('stores.emptyKeeps')}</p>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <StoreFields
          prefix="edit-store"
          form={form}
          set={setForm}
          problems={problems}
          clearing={{
            values,
            cleared,
            onClear: (field, clear) => {
              setCleared((now) => (clear ? [...now.filter((f) => f !== field), field] : now.filter((f) => f !== field)));
              if (clear) setForm((now) => ({ ...now, [field]: '' }));
              else setForm((now) => ({ ...now, [field]: current[field] }));
            },
          }}
        />
        <div className="actions">
          <button type="button" className="secondary" onClick={onDone}>
            {t('stores.cancel')}
          </button>
          <Submit disabled={busy}>{t('stores.save')}</Submit>
        </div>
        <ResultLine result={result} />
      </form>
    </Card>
  );
}

function WalletSelect({
  id,
  wallets,
  value,
  onChange,
  ...described
}: {
  id: string;
  wallets: WalletChoice[];
  value: number | null;
  onChange: (id: number | null) => void;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}) {
  const t = useText();
  return (
    <select id={id} value={value ?? ''} {...described} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
      <option value="">{t('checkouts.chooseWallet')}</option>
      {wallets.map((w) => (
        // Contract 5: a deprecated network would answer `Wallet network deprecated`: shown, with why, not choosable.
        <option key={w.wallet_id} value={w.wallet_id} disabled={w.deprecated}>
          {t(w.deprecated ? 'checkouts.walletDeprecated' : 'checkouts.walletOption', { id: w.wallet_id, address: w.address, network: w.network })}
        </option>
      ))}
    </select>
  );
}

function Checkouts({ store, wallets, onPoster, onCustomerLang }: { store: Store; wallets: WalletChoice[]; onPoster: (p: Poster) => void; onCustomerLang: () => void }) {
  const t = useText();
  const lang = useLang();
  const [checkouts, setCheckouts] = useState<OfficeCheckout[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const load = async () => {
    try {
      setCheckouts(await getBridge().call('office.checkouts', { storeId: store.store_id }));
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(lang, toUiError(err)));
    }
  };
  useEffect(() => {
    void load();
  }, [store.store_id]);
  return (
    <>
      <Card id="checkouts" heading={t('checkouts.heading', { name: store.store_name })}>
        <CustomerLangField storeId={store.store_id} storeName={store.store_name} onChanged={onCustomerLang} />
        {loadError && <ErrorAlert>{loadError}</ErrorAlert>}
        {checkouts && (
          <DataTable
            wrap
            className="report-table"
            headers={[t('checkouts.description'), t('checkouts.wallet'), t('checkouts.mode'), t('checkouts.actions')]}
            rows={checkouts}
            row={(c) => <CheckoutRow key={c.checkout_id} checkout={c} store={store} wallets={wallets} onChanged={load} onPoster={onPoster} />}
          />
        )}
      </Card>
      <AddCheckout store={store} wallets={wallets} onAdded={load} />
    </>
  );
}

function AddCheckout({ store, wallets, onAdded }: { store: Store; wallets: WalletChoice[]; onAdded: () => Promise<void> }) {
  const t = useText();
  const [description, setDescription] = useState('');
  const [walletId, setWalletId] = useState<number | null>(null);
  /** Whether Save was pressed: from then on each field says what is wrong with it as it is typed. */
  const [checked, setChecked] = useState(false);
  const { busy, result, run } = useRunner();
  const problems = checked ? checkoutFormProblems({ description, walletId }) : {};
  const problem = (field: 'description' | 'wallet') => {
    const key = problems[field];
    return key ? t(key) : null;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    if (focusFirstProblem('add-checkout', ['description', 'wallet'], checkoutFormProblems({ description, walletId }))) return;
    const added = await run(
      () => getBridge().call('office.addCheckout', { storeId: store.store_id, description, walletId: walletId as number }),
      (c) => t('checkouts.added', { name: c.checkout_desc }),
    );
    if (added) {
      setDescription('');
      setChecked(false);
      await onAdded();
    }
  };
  return (
    <Card id="add-checkout" heading={t('checkouts.add')}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Field id="add-checkout-description" label={t('checkouts.description')} problem={problem('description')}>
          {/* No maxLength: a longer one is said so beside the field, never cut. */}
          <input
            id="add-checkout-description"
            value={description}
            autoComplete="off"
            {...fieldProblemProps('add-checkout-description', problem('description'), 'add-checkout-rule')}
            onChange={(e) => setDescription(e.target.value)}
          />
          <span id="add-checkout-rule" className="muted">
            {t('checkouts.descRule')}
          </span>
        </Field>
        <Field id="add-checkout-wallet" label={t('checkouts.wallet')} problem={problem('wallet')}>
          <WalletSelect id="add-checkout-wallet" wallets={wallets} value={walletId} onChange={setWalletId} {...fieldProblemProps('add-checkout-wallet', problem('wallet'))} />
        </Field>
        <Submit disabled={busy}>{t('checkouts.save')}</Submit>
        <ResultLine result={result} />
      </form>
    </Card>
  );
}

function CheckoutRow({
  checkout,
  store,
  wallets,
  onChanged,
  onPoster,
}: {
  checkout: OfficeCheckout;
  store: Store;
  wallets: WalletChoice[];
  onChanged: () => Promise<void>;
  onPoster: (p: Poster) => void;
}) {
  const t = useText();
  const { busy, result, run } = useRunner();
  const [changing, setChanging] = useState(false);
  const [walletId, setWalletId] = useState<number | null>(null);
  const [asking, setAsking] = useState(false);
  const key = { storeId: store.store_id, checkoutId: checkout.checkout_id };
  const name = checkout.checkout_desc;
  const id = `checkout-${checkout.checkout_id}`;

  const print = async () => {
    const printed = await run(
      () => getBridge().call('office.printQr', key),
      (p) => t(p.created ? 'poster.created' : 'poster.existing', { name }),
    );
    if (printed) {
      onPoster(printed);
      await onChanged();
    }
  };
  const setMode = async (mode: 'printed' | 'dynamic') => {
    const done = await run(
      () => getBridge().call('office.setMode', { ...key, mode }),
      () => t(mode === 'printed' ? 'checkouts.nowPrinted' : 'checkouts.nowDynamic', { name }),
    );
    if (done) await onChanged();
  };
  const changeWallet = async () => {
    if (walletId === null) return;
    const done = await run(
      () => getBridge().call('office.changeWallet', { ...key, walletId, confirm: true }),
      (c) => t('checkouts.walletChanged', { name, id: c.wallet_id }),
    );
    setAsking(false);
    if (done) {
      setChanging(false);
      await onChanged();
    }
  };
  const askWallet = (e: FormEvent) => {
    e.preventDefault();
    if (walletId !== null && walletId !== checkout.wallet_id) setAsking(true);
  };

  return (
    <tr data-checkout={checkout.checkout_id}>
      <th scope="row">
        {name} <span className="muted">· {t('checkouts.number')} {checkout.checkout_id}</span>
      </th>
      <td data-testid="checkout-wallet">
        {checkout.wallet_address === null ? t('checkouts.walletUnknown', { id: checkout.wallet_id }) : t('checkouts.walletOf', { id: checkout.wallet_id, address: checkout.wallet_address })}
      </td>
      <td data-testid="checkout-mode">
        {t(checkout.mode === 'printed' ? 'checkouts.modePrinted' : 'checkouts.modeDynamic')}
        {!checkout.printed_qr && <span className="muted"> · {t('checkouts.noPrintedQr')}</span>}
      </td>
      <td>
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void print()}>
            {t('checkouts.printPoster')}
          </button>
          {checkout.mode === 'dynamic' ? (
            <button type="button" className="secondary" disabled={busy} onClick={() => void setMode('printed')}>
              {t('checkouts.usePrinted')}
            </button>
          ) : (
            <button type="button" className="secondary" disabled={busy} onClick={() => void setMode('dynamic')}>
              {t('checkouts.useDynamic')}
            </button>
          )}
          {!changing && (
            <button type="button" className="secondary" onClick={() => setChanging(true)}>
              {t('checkouts.changeWallet')}
            </button>
          )}
        </div>
        {changing && !asking && (
          <form onSubmit={askWallet} noValidate aria-label={t('checkouts.changeWallet')}>
            <Field id={`${id}-wallet`} label={t('checkouts.wallet')}>
              <WalletSelect id={`${id}-wallet`} wallets={wallets} value={walletId} onChange={setWalletId} />
            </Field>
            <div className="actions">
              <button type="button" className="secondary" onClick={() => setChanging(false)}>
                {t('checkouts.cancel')}
              </button>
              <Submit>{t('checkouts.save')}</Submit>
            </div>
          </form>
        )}
        {asking && walletId !== null && (
          <Confirm
            id={`${id}-confirm`}
            title={t('checkouts.confirmWalletTitle', { name, id: walletId })}
            body={t('checkouts.confirmWalletBody', { name, id: walletId })}
            keep={t('checkouts.confirmWalletNo')}
            go={t('checkouts.confirmWalletYes', { id: walletId })}
            busy={busy}
            onKeep={() => setAsking(false)}
            onGo={() => void changeWallet()}
          />
        )}
        <ResultLine result={result}>
          {result?.error?.params?.problem === 'mode_needs_printed_qr' && (
            <button type="button" className="primary" disabled={busy} onClick={() => void print()}>
              {t('checkouts.printPoster')}
            </button>
          )}
        </ResultLine>
      </td>
    </tr>
  );
}

function PrintedQrs({ version }: { version: number }) {
  const t = useText();
  const lang = useLang();
  const [page, setPage] = useState(1);
  const [list, setList] = useState<PrintedQrList | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    getBridge()
      .call('office.printedQrs', { page })
      .then(
        (l) => {
          if (current) {
            setList(l);
            setError(null);
          }
        },
        (err: unknown) => {
          if (current) setError(errorText(lang, toUiError(err)));
        },
      );
    return () => {
      current = false;
    };
  }, [page, version]);
  const pages = list ? Math.max(1, Math.ceil(list.total / list.page_size)) : 1;
  return (
    <Card id="printed" heading={t('printed.heading')}>
      {error && <ErrorAlert>{error}</ErrorAlert>}
      {list && list.total === 0 && <p className="muted">{t('printed.empty')}</p>}
      {list && list.total > 0 && (
        <>
          <DataTable
            wrap
            className="report-table"
            columns={[
              { header: t('printed.store'), cell: (r) => r.store_name ?? t('stores.number', { id: r.store_id }) },
              { header: t('printed.checkout'), rowHeader: true, cell: (r) => r.checkout_desc ?? String(r.checkout_id) },
              { header: t('printed.address'), cell: (r) => r.address },
              // The service's id of the printed QR, for its support: behind Details (issue 26).
              { header: t('report.col.details'), cell: (r) => <Ids ids={[[t('printed.id'), r.printed_dynamic_qr_id]]} /> },
            ]}
            rows={list.rows}
            rowKey={(r) => r.printed_dynamic_qr_id}
          />
          <div className="actions">
            <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              {t('printed.previous')}
            </button>
            <span>{t('printed.page', { page: formatCount(lang, page), pages: formatCount(lang, pages), total: formatCount(lang, list.total) })}</span>
            <button type="button" className="secondary" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
              {t('printed.next')}
            </button>
          </div>
        </>
      )}
    </Card>
  );
}
