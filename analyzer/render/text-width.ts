/**
 * How wide a label may be drawn, without a font to measure it: an upper bound
 * of each character's width in the page's sans-serif at a size (emoji and CJK
 * as wide as an em, combining marks and zero-width characters as nothing), so
 * that a label cut to fit a width never overflows it. Cut between grapheme
 * clusters, so that an emoji sequence or a letter with its marks stays whole.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const ZERO_WIDTH = /^[\p{M}\p{Cf}]+$/u;
const WIDE = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
const NARROW = /^[ .,:;'|!ilIjtf()[\]{}`"/\\-]$/;
const CAPS = /^[A-Z0-9_%@#&?$+=<>~^*]$/;

/** The width of one grapheme cluster, in ems (an upper bound of the bold face's; the regular's is REGULAR of it). */
function ems(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  // A letter with its combining marks is as wide as the letter (an emoji sequence keeps its joiners: one wide glyph).
  const g = WIDE.test(cluster) ? cluster : cluster.replace(/[\p{M}\p{Cf}]/gu, '');
  if (WIDE.test(g)) return 1.3;
  if (NARROW.test(g)) return 0.42;
  if (/^[mwMW]$/.test(g)) return 1;
  if (CAPS.test(g)) return 0.78;
  if (/^[a-z]$/.test(g)) return 0.66;
  // Other scripts (Arabic, Cyrillic, Greek, accented Latin): wide enough for any of their letters.
  return 0.85;
}

/** A regular face's widths against the bold's (DejaVu Sans, the widest of the usual fallbacks: 0.9). */
const REGULAR = 0.92;

const graphemes = (text: string): string[] => Array.from(segmenter.segment(text), (s) => s.segment);

/** An upper bound of `text`'s width in px at `size` px (`bold`: in the bold face). */
export function textWidth(text: string, size: number, bold = false): number {
  let w = 0;
  for (const g of graphemes(text)) w += ems(g);
  return w * size * (bold ? 1 : REGULAR);
}

/** `text`, cut (with `…`) to fit `width` px at `size` px; '' when not even the ellipsis fits. */
export function fitText(text: string, width: number, size: number, bold = false): string {
  if (textWidth(text, size, bold) <= width) return text;
  const em = size * (bold ? 1 : REGULAR);
  const room = width - ems('…') * em;
  if (room <= 0) return '';
  let w = 0;
  let out = '';
  for (const g of graphemes(text)) {
    w += ems(g) * em;
    if (w > room) break;
    out += g;
  }
  // A cut never leaves a direction mark or a joiner dangling.
  return `${out.replace(/[\p{Cf}\s]+$/u, '')}…`;
}
