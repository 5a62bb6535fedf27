import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import type { DeviceKind, DeviceView, ResultOf } from '../../electron/core/contract.ts';
import { Card } from '../components/Card.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Confirm } from '../components/Confirm.tsx';
import { Field, fieldProblemProps, focusFirstProblem, Submit } from '../components/Field.tsx';
import { ErrorAlert, FormError } from '../components/FormError.tsx';
import { Icon } from '../components/Icon.tsx';
import { useInView } from '../components/useInView.ts';
import { QrImage } from '../components/QrImage.tsx';
import { StoreCheckoutPicker, useStoreCheckoutPick } from '../components/StoreCheckoutPicker.tsx';
import { getBridge, toUiError } from '../lib/bridge.ts';
import { formatPairingCode, pickedId } from '../lib/devices.ts';
import { errorText } from '../lib/errorText.ts';
import { formatDateTime, formatTime } from '../lib/i18n.ts';
import { PAIRING_FORM_ORDER, pairingFormProblems, type PairingFormField } from '../lib/pairingForm.ts';
import { useAttempt } from '../lib/useAttempt.ts';
import { useLang, useText } from '../lib/useText.ts';
import { selectTerminal, useStatus } from '../stores/status.ts';

/** How often the list is read again while the screen is open: last seen and online move by themselves. */
const REFRESH_MS = 5_000;

type Offer = ResultOf<'devices.startPairing'>;

/**
 * A manager's screen: every till and customer display paired with the store (revoked ones
 * stay listed: the journal keeps who paired and who revoked), **Revoke** per active device,
 * and **Pair a till**, which makes a one-time pairing code for one checkout.
 */
export function DevicesScreen() {
  const t = useText();
  const lang = useLang();
  const [devices, setDevices] = useState<DeviceView[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      setDevices(await getBridge().call('devices.list'));
      setLoadError(null);
    } catch (err) {
      setLoadError(errorText(lang, toUiError(err)));
    }
  }, [lang]);
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  return (
    <div className="devices">
      <Card id="devices" heading={t('devices.heading')}>
        <p className="help">{t('devices.help')}</p>
        {loadError && <ErrorAlert>{loadError}</ErrorAlert>}
        {devices && devices.length === 0 && <p className="muted">{t('devices.none')}</p>}
        {devices && devices.length > 0 && (
          <DataTable
            className="operators-table devices-table"
            headers={[t('devices.name'), t('devices.kind'), t('devices.checkout'), t('devices.lastSeen'), t('devices.paired'), t('devices.state')]}
            rows={devices}
            row={(d) => <DeviceRow key={d.id} device={d} onChanged={load} />}
          />
        )}
      </Card>
      <PairATill onPaired={load} />
    </div>
  );
}

function DeviceRow({ device, onChanged }: { device: DeviceView; onChanged: () => Promise<void> }) {
  const t = useText();
  const lang = useLang();
  const [asking, setAsking] = useState(false);
  const { busy, error, attempt } = useAttempt();
  const id = `device-${device.id}`;
  const revoke = () =>
    attempt(async () => {
      await getBridge().call('devices.revoke', { deviceId: device.id });
      setAsking(false);
      await onChanged();
    });
  const revoked = device.revokedAt !== null;
  return (
    <tr data-device={device.name} className={revoked ? 'muted' : undefined}>
      <th scope="row">{device.name}</th>
      <td>{t(`devices.kind.${device.kind}`)}</td>
      <td>{t('status.terminalValue', { store: device.storeId, checkout: device.checkoutId })}</td>
      <td data-testid="device-last-seen">
        {device.online ? (
          <span className="pill pill-good">
            <Icon name="check" /> {t('devices.online')}
          </span>
        ) : device.lastSeenAt !== null ? (
          formatDateTime(lang, device.lastSeenAt)
        ) : (
          t('devices.neverSeen')
        )}
      </td>
      <td>{t('devices.pairedBy', { by: device.pairedBy, at: formatDateTime(lang, device.pairedAt) })}</td>
      <td>
        {revoked ? (
          <span data-testid="device-state">{t('devices.revokedBy', { by: device.revokedBy ?? '', at: formatDateTime(lang, device.revokedAt as number) })}</span>
        ) : (
          <>
            <span data-testid="device-state">{t('devices.active')}</span>
            {!asking && (
              <div className="actions">
                <button type="button" className="danger" aria-label={t('devices.revokeLabel', { name: device.name })} onClick={() => setAsking(true)}>
                  {t('devices.revoke')}
                </button>
              </div>
            )}
          </>
        )}
        {asking && (
          <Confirm
            id={`${id}-confirm`}
            title={t('devices.revokeTitle', { name: device.name })}
            body={t('devices.revokeBody', { name: device.name })}
            keep={t('devices.revokeNo', { name: device.name })}
            go={t('devices.revokeLabel', { name: device.name })}
            busy={busy}
            onKeep={() => setAsking(false)}
            onGo={() => void revoke()}
          />
        )}
        {error && (
          <ErrorAlert>
            <Icon name="cross" /> {errorText(lang, error)}
          </ErrorAlert>
        )}
      </td>
    </tr>
  );
}

/**
 * **Pair a till**: kind, store and checkout picked from the service's lists (issue 26), and a
 * name, then a one-time code and the address to open. A checkout the service does not list yet
 * (it is created by its first charge) is typed as Another checkout; where the lists cannot be
 * read, both are typed as numbers.
 */
function PairATill({ onPaired }: { onPaired: () => Promise<void> }) {
  const t = useText();
  const lang = useLang();
  const terminal = useStatus(selectTerminal);
  const [open, setOpen] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  useInView(form, open);
  const [kind, setKind] = useState<DeviceKind>('till');
  const pick = useStoreCheckoutPick(open, false);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  /** What the core refused (the fields' own problems are said beside each, below). */
  const [problem, setProblem] = useState<string | null>(null);
  /** Whether Create pairing code was pressed: from then on each field says what is wrong with it as it is picked or typed. */
  const [checked, setChecked] = useState(false);
  /** The code on show, with the kind of device it pairs (the address line names that device). */
  const [offer, setOffer] = useState<(Offer & { kind: typeof kind }) | null>(null);

  const start = () => {
    // The store computer's own checkout to begin with: the manager picks another till's.
    pick.reset(terminal?.storeId ?? 1, terminal?.checkoutId ?? 1);
    setOpen(true);
    setOffer(null);
    setProblem(null);
    setChecked(false);
  };
  const fields = { store: pick.store, checkout: pick.checkout, otherCheckout: pick.otherCheckout, name, typing: pick.typing };
  const problems = checked ? pairingFormProblems(fields) : {};
  const fieldProblem = (field: PairingFormField) => {
    const key = problems[field];
    return key ? t(key) : null;
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setChecked(true);
    setProblem(null);
    // Issue 26: each wrong field is named beside it, and nothing is sent.
    if (focusFirstProblem('pair', PAIRING_FORM_ORDER, pairingFormProblems(fields))) return;
    const storeId = pickedId(pick.store, '');
    const checkoutId = pickedId(pick.checkout, pick.otherCheckout);
    if (storeId === null || checkoutId === null) return;
    setBusy(true);
    setProblem(null);
    try {
      setOffer({ ...(await getBridge().call('devices.startPairing', { kind, storeId, checkoutId, name: name.trim() })), kind });
      setName('');
      setChecked(false);
      await onPaired();
    } catch (err) {
      setProblem(errorText(lang, toUiError(err)));
    } finally {
      setBusy(false);
    }
  };
  const address = offer?.urls[0] ?? null;
  return (
    <Card id="pair-a-till" heading={t('devices.pairHeading')} className="pair-a-till">
      <p className="help">{t('devices.pairHelp')}</p>
      {!open && (
        <button type="button" className="primary" onClick={start}>
          {t('devices.pairButton')}
        </button>
      )}
      {open && (
        <form ref={form} onSubmit={(e) => void submit(e)} noValidate aria-label={t('devices.pairHeading')}>
          <Field id="pair-kind" label={t('devices.kind')}>
            <select id="pair-kind" value={kind} onChange={(e) => setKind(e.target.value as DeviceKind)}>
              <option value="till">{t('devices.kind.till')}</option>
              <option value="display">{t('devices.kind.display')}</option>
            </select>
          </Field>
          <StoreCheckoutPicker idPrefix="pair" pick={pick} problem={fieldProblem} />
          <p className="help">{t('devices.checkoutHelp')}</p>
          <Field id="pair-name" label={t('devices.name')} problem={fieldProblem('name')}>
            {/* No maxLength: a longer name is said so beside the field, never cut. */}
            <input
              id="pair-name"
              value={name}
              autoComplete="off"
              placeholder={t('devices.namePlaceholder')}
              onChange={(e) => setName(e.target.value)}
              {...fieldProblemProps('pair-name', fieldProblem('name'))}
            />
          </Field>
          <Submit disabled={busy}>{t('devices.createCode')}</Submit>
          <FormError text={problem} />
        </form>
      )}
      {offer && (
        <div className="pairing-offer" role="region" aria-label={t('devices.codeLabel')}>
          <p className="field-label">{t('devices.codeLabel')}</p>
          <p className="pairing-code" data-testid="pairing-code">
            {formatPairingCode(offer.code)}
          </p>
          <p className="help">{t('devices.codeExpires', { at: formatTime(lang, offer.expiresAt) })}</p>
          {address && (
            <>
              <QrImage emv={address} alt={t('devices.addressQr')} size={200} />
              <p>
                {t(offer.kind === 'display' ? 'devices.openAddressDisplay' : 'devices.openAddress')} <strong data-testid="pairing-address">{address}</strong>
              </p>
              {/* The store may be reached by more than one address (every interface, its name). */}
              {offer.urls.length > 1 && (
                <p className="help">
                  {t('devices.otherAddresses')} {offer.urls.slice(1).join(' · ')}
                </p>
              )}
            </>
          )}
          {offer.fingerprint !== null && (
            <p className="help">
              {t('devices.fingerprint')} <strong className="fingerprint-value">{offer.fingerprint}</strong>
            </p>
          )}
          {/* Issue 25, point 5: the better path for tablets. Installed once, the store's CA makes
              the browser itself check the store's certificate: no warning, no exception. */}
          {offer.storeCa !== null && (
            <div className="store-ca" data-testid="store-ca">
              <h3>{t('devices.storeCaHeading')}</h3>
              <QrImage emv={offer.storeCa.url} alt={t('devices.storeCaQr')} size={160} />
              <p>
                <strong data-testid="store-ca-address">{offer.storeCa.url}</strong>
              </p>
              <p className="help">{t('devices.storeCaHelp')}</p>
              <p className="help">
                {t('devices.storeCaFingerprint')} <strong className="fingerprint-value">{offer.storeCa.fingerprint}</strong>
              </p>
            </div>
          )}
        </div>
      )}
    </Card>
  );
}
