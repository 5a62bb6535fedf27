import { toDataURL } from 'qrcode';
import { useEffect, useState } from 'react';

/**
 * The Pix QR as an image, drawn from the screen's `emv` only. The image shown always
 * belongs to the current `emv`: an answer from `toDataURL` for an earlier one is dropped,
 * and until the new one is drawn nothing is shown (never a stale QR).
 */
export function QrImage({ emv, alt, size }: { emv: string; alt: string; size: number }) {
  const [drawn, setDrawn] = useState<{ emv: string; url: string } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    toDataURL(emv, { errorCorrectionLevel: 'M', margin: 4, width: size }).then(
      (url) => {
        if (current) setDrawn({ emv, url });
      },
      () => {
        if (current) setFailed(emv);
      },
    );
    return () => {
      current = false;
    };
  }, [emv, size]);
  if (failed === emv) return <div className="qr qr-missing" role="img" aria-label={alt} />;
  if (drawn?.emv !== emv) return <div className="qr qr-drawing" aria-hidden="true" />;
  return <img className="qr" src={drawn.url} alt={alt} width={size} height={size} />;
}
