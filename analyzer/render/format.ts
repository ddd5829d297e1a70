/** How every human-readable format writes numbers, so that the terminal, Markdown and HTML agree. */

/** Dollars: 4 decimals below $1 (ghost tax is often cents), else 2. */
export function usd(value: number): string {
  return `$${Math.abs(value) < 1 ? value.toFixed(4) : value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A count with thousands separators. */
export function int(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Milliseconds (null: no such latency in the window). */
export function ms(value: number | null): string {
  if (value === null) return '–';
  return value >= 1000 ? `${(value / 1000).toLocaleString('en-US', { maximumFractionDigits: 2 })} s` : `${value.toLocaleString('en-US', { maximumFractionDigits: 1 })} ms`;
}

/** A histogram bucket's label: "≤ 10 ms", ..., "> 10 s". */
export function bucketLabel(upperMs: number | null, previousUpperMs: number | null): string {
  if (upperMs === null) return `> ${ms(previousUpperMs)}`;
  return `≤ ${ms(upperMs)}`;
}
