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

const tone = (hz: number, ms: number, wave: OscillatorType): Note => ({ hz, ms, wave });
/** A silence between two tones. */
const rest = (ms: number): Note => tone(0, ms, 'sine');

export const TUNES: Record<Outcome, readonly Note[]> = {
  // Rising major third: done, all good.
  paid: [tone(660, 120, 'sine'), tone(880, 220, 'sine')],
  // Two low buzzes: stop and look.
  amount_mismatch: [tone(220, 180, 'square'), rest(90), tone(220, 180, 'square')],
  // One falling tone: time is over.
  expired: [tone(440, 160, 'triangle'), tone(330, 260, 'triangle')],
  // Three quick high beeps: an alert about money already received.
  paid_late: [tone(988, 90, 'sawtooth'), rest(60), tone(988, 90, 'sawtooth'), rest(60), tone(988, 90, 'sawtooth')],
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
