import { useText } from '../lib/useText.ts';

/**
 * The service's and the journal's ids of a row (pix_id, service_id, a sale id), behind a
 * **Details** disclosure (issue 26): a person names a sale by its time, amount and reference,
 * and opens this only to read an id to the service's support or to copy one.
 */
export function Ids({ ids }: { ids: readonly (readonly [label: string, value: string | number | null])[] }) {
  const t = useText();
  const shown = ids.filter(([, value]) => value !== null && value !== '');
  if (shown.length === 0) return null;
  return (
    <details className="ids">
      <summary>{t('report.col.details')}</summary>
      <dl>
        {shown.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>
              <code>{value}</code>
            </dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
