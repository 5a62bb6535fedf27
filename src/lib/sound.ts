import type { Outcome } from './messages.ts';

/**
 * A distinct short tune per outcome, synthesised with the Web Audio API (no files). A sound
 * is never the only signal: every outcome also has its word, icon and colour on screen.
 */
export interface Note {
  /** Frequency in Hz. */
  hz: number;
  /** Duration in ms. */
  ms: number;
  wave: OscillatorType;
}

export const TUNES: Record<Outcome, readonly Note[]> = {
  // Rising major third: done, all good.
  paid: [
    { hz: 660, ms: 120, wave: 'sine' },
    { hz: 880, ms: 220, wave: 'sine' },
  ],
  // Two low buzzes: stop and look.
  amount_mismatch: [
    { hz: 220, ms: 180, wave: 'square' },
    { hz: 0, ms: 90, wave: 'sine' },
    { hz: 220, ms: 180, wave: 'square' },
  ],
  // One falling tone: time is over.
  expired: [
    { hz: 440, ms: 160, wave: 'triangle' },
    { hz: 330, ms: 260, wave: 'triangle' },
  ],
  // Three quick high beeps: an alert about money already received.
  paid_late: [
    { hz: 988, ms: 90, wave: 'sawtooth' },
    { hz: 0, ms: 60, wave: 'sine' },
    { hz: 988, ms: 90, wave: 'sawtooth' },
    { hz: 0, ms: 60, wave: 'sine' },
    { hz: 988, ms: 90, wave: 'sawtooth' },
  ],
};

let context: AudioContext | null = null;

/** Browsers only let audio start after a gesture: call this on the first key or tap. */
export function unlockAudio(): void {
  if (typeof AudioContext === 'undefined') return;
  context ??= new AudioContext();
  if (context.state === 'suspended') void context.resume();
}

/** Plays an outcome's tune; silent while the page is hidden or before any gesture. */
export function playOutcome(outcome: Outcome, doc: Document = document): void {
  if (doc.hidden || !context || context.state !== 'running') return;
  const ctx = context;
  let t = ctx.currentTime + 0.01;
  for (const note of TUNES[outcome]) {
    const seconds = note.ms / 1000;
    if (note.hz > 0) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = note.wave;
      osc.frequency.value = note.hz;
      // Short ramps avoid clicks; the level stays moderate for a shop floor.
      gain.gain.setValueAtTime(0, t);
      gain.gain.linearRampToValueAtTime(0.18, t + 0.01);
      gain.gain.setValueAtTime(0.18, t + seconds - 0.02);
      gain.gain.linearRampToValueAtTime(0, t + seconds);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t);
      osc.stop(t + seconds);
    }
    t += seconds;
  }
}
