import { useCallback, useEffect, useRef, useState } from 'react';
import type { OfficeCheckout, Store } from '../../electron/core/contract.ts';
import { getBridge } from '../lib/bridge.ts';
import { checkoutAfterListing, OTHER_CHECKOUT, pickedId, type StoreCheckoutChoice } from '../lib/devices.ts';
import type { StoreCheckoutField } from '../lib/storeCheckoutForm.ts';
import { useText } from '../lib/useText.ts';
import { Field, fieldProblemProps } from './Field.tsx';

/** A list read from the service for the pickers: not yet, read, or unreadable (then numbers are typed). */
type Listed<T> = T[] | null | 'failed';

export interface StoreCheckoutPick extends StoreCheckoutChoice {
  stores: Listed<Store>;
  checkouts: Listed<OfficeCheckout>;
  /** Whether a list could not be read, so the store and checkout are typed as numbers. */
  typing: boolean;
  setStore: (store: string) => void;
  setCheckout: (checkout: string) => void;
  setOtherCheckout: (typed: string) => void;
  /** Begins again on this store and checkout, reading the lists anew. */
  reset: (storeId: number, checkoutId: number) => void;
}

/**
 * The store and checkout of a form, picked from the service's lists (issue 26): the stores
 * once `active`, then the checkouts of the store picked. `keepUnlisted`: the checkout the form
 * opened on stays chosen even if the service does not list it yet (as Another checkout).
 */
export function useStoreCheckoutPick(active: boolean, keepUnlisted: boolean): StoreCheckoutPick {
  const [choice, setChoice] = useState<StoreCheckoutChoice>({ store: '', checkout: '', otherCheckout: '' });
  const [stores, setStores] = useState<Listed<Store>>(null);
  const [checkouts, setCheckouts] = useState<Listed<OfficeCheckout>>(null);
  const [round, setRound] = useState(0);
  /** Whether the checkouts listed next are the first since the form opened (its own checkout is kept then only). */
  const first = useRef(true);
  const storesFailed = stores === 'failed';

  useEffect(() => {
    if (!active) return;
    let live = true;
    getBridge()
      .call('office.stores')
      .then((list) => live && setStores(list))
      .catch(() => live && setStores('failed'));
    return () => {
      live = false;
    };
  }, [active, round]);
  const storeId = pickedId(choice.store, '');
  useEffect(() => {
    if (!active || storeId === null || storesFailed) return;
    let live = true;
    setCheckouts(null);
    getBridge()
      .call('office.checkouts', { storeId })
      .then((list) => {
        if (!live) return;
        const keep = keepUnlisted && first.current;
        first.current = false;
        setCheckouts(list);
        setChoice((now) => checkoutAfterListing(now, list.map((c) => c.checkout_id), keep));
      })
      .catch(() => live && setCheckouts('failed'));
    return () => {
      live = false;
    };
  }, [active, storeId, storesFailed, keepUnlisted, round]);

  const reset = useCallback((store: number, checkout: number) => {
    first.current = true;
    setChoice({ store: String(store), checkout: String(checkout), otherCheckout: '' });
    setStores(null);
    setCheckouts(null);
    setRound((r) => r + 1);
  }, []);
  return {
    ...choice,
    stores,
    checkouts,
    typing: storesFailed || checkouts === 'failed',
    setStore: (store) => setChoice((now) => ({ ...now, store })),
    setCheckout: (checkout) => setChoice((now) => ({ ...now, checkout })),
    setOtherCheckout: (otherCheckout) => setChoice((now) => ({ ...now, otherCheckout })),
    reset,
  };
}

function NumberField({ id, label, value, onChange, problem }: { id: string; label: string; value: string; onChange: (v: string) => void; problem: string | null }) {
  return (
    <Field id={id} label={label} problem={problem}>
      <input id={id} inputMode="numeric" autoComplete="off" value={value} onChange={(e) => onChange(e.target.value.replace(/\D/g, ''))} {...fieldProblemProps(id, problem)} />
    </Field>
  );
}

/**
 * The store and checkout pickers (Pair a till, Settings' This terminal): lists from the
 * service, a checkout not listed yet (one is made by its first charge) typed as Another
 * checkout, and, where the lists cannot be read, both typed as numbers. Controls are
 * `{idPrefix}-store`, `-checkout` and `-other-checkout`; `problem` says each one's fault beside it.
 */
export function StoreCheckoutPicker({ idPrefix, pick, problem }: { idPrefix: string; pick: StoreCheckoutPick; problem: (field: StoreCheckoutField) => string | null }) {
  const t = useText();
  const { stores, checkouts, store, checkout, otherCheckout } = pick;
  const id = (field: StoreCheckoutField) => `${idPrefix}-${field}`;
  if (pick.typing) {
    return (
      <>
        <p className="help">{t('devices.listsFailed')}</p>
        <NumberField id={id('store')} label={t('devices.store')} value={store} onChange={pick.setStore} problem={problem('store')} />
        <NumberField id={id('checkout')} label={t('devices.checkoutNumber')} value={checkout === OTHER_CHECKOUT ? otherCheckout : checkout} onChange={pick.setCheckout} problem={problem('checkout')} />
      </>
    );
  }
  const storeList = Array.isArray(stores) ? stores : [];
  const checkoutList = Array.isArray(checkouts) ? checkouts : [];
  // A store the form opened on that the service does not list stays shown, never silently swapped.
  const unlistedStore = stores !== null && pickedId(store, '') !== null && !storeList.some((s) => String(s.store_id) === store);
  return (
    <>
      <Field id={id('store')} label={t('devices.store')} problem={problem('store')}>
        <select id={id('store')} value={stores === null ? '' : store} disabled={stores === null} onChange={(e) => pick.setStore(e.target.value)} {...fieldProblemProps(id('store'), problem('store'))}>
          {stores === null && <option value="">{t('devices.loadingList')}</option>}
          {storeList.map((s) => (
            <option key={s.store_id} value={String(s.store_id)}>
              {t('devices.storeOption', { name: s.store_name, id: s.store_id })}
            </option>
          ))}
          {unlistedStore && <option value={store}>{t('devices.storeUnlisted', { id: store })}</option>}
        </select>
      </Field>
      <Field id={id('checkout')} label={t('devices.checkoutNumber')} problem={problem('checkout')}>
        <select
          id={id('checkout')}
          value={checkouts === null ? '' : checkout}
          disabled={checkouts === null}
          onChange={(e) => pick.setCheckout(e.target.value)}
          {...fieldProblemProps(id('checkout'), problem('checkout'))}
        >
          {checkouts === null && <option value="">{t('devices.loadingList')}</option>}
          {checkoutList.map((c) => (
            <option key={c.checkout_id} value={String(c.checkout_id)}>
              {t('devices.checkoutOption', { name: c.checkout_desc, id: c.checkout_id })}
            </option>
          ))}
          {checkouts !== null && <option value={OTHER_CHECKOUT}>{t('devices.otherCheckout')}</option>}
        </select>
      </Field>
      {checkout === OTHER_CHECKOUT && checkouts !== null && (
        <NumberField id={id('other-checkout')} label={t('devices.otherCheckoutNumber')} value={otherCheckout} onChange={pick.setOtherCheckout} problem={problem('other-checkout')} />
      )}
    </>
  );
}
