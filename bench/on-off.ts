import { median, pairedSpread, type Spread } from './child.js';
import { timeIt } from './tool-call.js';

/** The same work with a feature on and off: the medians, ns a call, and their ratio. */
export interface OnOff {
  onNs: number;
  offNs: number;
  ratio: number;
  /** The middle half of the rounds' ratios, each round's on over its own off. */
  spread: Spread;
}

/**
 * Time `f` with a feature switched on and off, rounds interleaved in one process (which goes first
 * alternates, so that drift hits both alike), after a warm-up of each; the median of each side.
 * `pauseMs` between samples lets timers and the export queue settle.
 */
export async function measureOnOff(on: () => void, off: () => void, f: (i: number) => Promise<unknown>, iterations: number, rounds: number, pauseMs = 0): Promise<OnOff> {
  const samples = { on: [] as number[], off: [] as number[] };
  for (const mode of [on, off]) {
    mode();
    await timeIt(iterations / 5, f);
  }
  for (let r = 0; r < rounds; r++) {
    for (const [mode, into] of (r % 2 === 0
      ? [
          [on, samples.on],
          [off, samples.off],
        ]
      : [
          [off, samples.off],
          [on, samples.on],
        ]) as [() => void, number[]][]) {
      mode();
      into.push(await timeIt(iterations, f));
      if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
  const onNs = median(samples.on);
  const offNs = median(samples.off);
  return { onNs, offNs, ratio: onNs / offNs, spread: pairedSpread(samples.on, samples.off) };
}
