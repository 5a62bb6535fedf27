import { useMemo } from 'react';
import { qrSvgUrl } from '../lib/qr.ts';

/**
 * The Pix QR as an image, drawn from the screen's `emv` only, in the same render that shows
 * the `emv`: its SVG is made synchronously (qr.ts), so the image shown always belongs to the
 * current `emv` and none is ever stale or missing for a frame. A PNG made through a canvas
 * took a second render and most of the page's share of Charge → QR (issue 28). A text no QR
 * can hold is shown as a blank square with the same label.
 */
export function QrImage({ emv, alt, size }: { emv: string; alt: string; size: number }) {
  const url = useMemo(() => {
    try {
      return qrSvgUrl(emv, size);
    } catch {
      return null;
    }
  }, [emv, size]);
  if (url === null) return <div className="qr qr-missing" role="img" aria-label={alt} />;
  return <img className="qr" src={url} alt={alt} width={size} height={size} />;
}
