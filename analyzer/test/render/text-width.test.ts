import { describe, expect, it } from 'vitest';
import { fitText, textWidth } from '../../render/text-width.js';

describe('text-width', () => {
  it('bounds a label’s width from above: emoji and CJK an em or more, combining marks and zero-width characters nothing', () => {
    expect(textWidth('abc', 10)).toBeGreaterThan(0);
    expect(textWidth('abc', 10, true)).toBeGreaterThan(textWidth('abc', 10));
    expect(textWidth('📧', 10, true)).toBeGreaterThanOrEqual(10);
    expect(textWidth('漢', 10, true)).toBeGreaterThanOrEqual(10);
    expect(textWidth('send\u200b\u200d\u2060', 10)).toBe(textWidth('send', 10));
    // A letter and its combining marks are one cluster, as wide as one letter.
    expect(textWidth('s\u0337\u0321\u031b', 10)).toBe(textWidth('s', 10));
  });

  it('cuts to the width given, between grapheme clusters, with an ellipsis; keeps what fits whole', () => {
    expect(fitText('send_email', 500, 11)).toBe('send_email');
    const cut = fitText('x'.repeat(200), 100, 11);
    expect(cut.endsWith('…')).toBe(true);
    expect(textWidth(cut, 11)).toBeLessThanOrEqual(100);
    // A family emoji (one grapheme of seven code points) is kept whole or left out whole.
    const family = '👩‍👩‍👧‍👦';
    const emoji = fitText(`${family}${family}${family}`, 30, 11);
    expect(emoji.replace('…', '').length % family.length).toBe(0);
    // A cut leaves no joiner or direction mark dangling.
    expect(fitText(`ab\u200d\u200f${'c'.repeat(50)}`, 30, 11)).not.toMatch(/[\u200d\u200f]…$/);
    expect(fitText('anything', 2, 11)).toBe('');
  });
});
