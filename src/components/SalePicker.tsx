import type { SaleSummary } from '../../electron/core/contract.ts';
import { formatMoney } from '../lib/format.ts';
import { formatTime } from '../lib/i18n.ts';
import { statusWordKey } from '../lib/messages.ts';
import { useLang, useText } from '../lib/useText.ts';
import { useShift } from '../stores/shift.ts';

/**
 * Which sale a payment belongs to, chosen from the report's sales as a person knows them
 * (amount, time, reference, state), never a typed id. A refused sale made nothing at the
 * service, so it is not offered.
 */
export function SalePicker({ id, value, onChange }: { id: string; value: string; onChange: (saleId: string) => void }) {
  const t = useText();
  const lang = useLang();
  // The report itself is selected (a stable object): a fresh [] per read would re-render for ever.
  const report = useShift((s) => s.report);
  const choices = (report?.sales ?? []).filter((s: SaleSummary) => s.status !== 'failed');
  return (
    <>
      <label htmlFor={id}>{t('unmatched.sale')}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t('unmatched.pickSale')}</option>
        {choices.map((s) => (
          <option key={s.sale_id} value={s.sale_id}>
            {[formatMoney(lang, s.amount_cents), formatTime(lang, s.requested_at), s.external_id, t(statusWordKey(s.status))].filter(Boolean).join(' · ')}
          </option>
        ))}
      </select>
    </>
  );
}
