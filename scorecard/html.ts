import { escapeHtml, pageStart } from '@afterstop/analyzer';
import { MOMENTS } from './scenarios.js';
import { ghostsAgree, ghostText, guardedText, TRACED_SHIFT, tracedText, type Marked, type Scorecard } from './scorecard.js';

/**
 * The scorecard as a page in the leak report's style: self-contained, no
 * script, every string escaped.
 */
export function renderScorecardHtml(card: Scorecard): string {
  const limits = [...new Set(card.cells.filter((c) => c.ran && c.agrees === false && c.limit !== undefined).map((c) => c.limit!))];
  const num = (v: number | null | undefined): string => `<td class="num">${v === null || v === undefined ? '–' : escapeHtml(String(Math.round(v)))}</td>`;
  const pair = (a: number, b: number): string => `<td class="num">${a === b ? String(a) : `<strong>${a}</strong> / ${b}`}</td>`;
  const marked = (parts: Marked[]): string => parts.map((p) => (p.strong ? `<strong>${escapeHtml(p.text)}</strong>` : escapeHtml(p.text))).join('');
  const rows = card.cells.map((c) => {
    const head = `<td>${escapeHtml(c.framework)}</td><td>${escapeHtml(MOMENTS[c.moment])}</td>`;
    if (!c.ran || c.measured === undefined || c.truth === undefined) return `<tr>${head}<td colspan="13">did not run: ${escapeHtml(c.error ?? 'unknown')}</td></tr>`;
    const m = c.measured;
    const t = c.truth;
    const verdict = c.agrees === true ? 'yes' : c.limit !== undefined ? `no: known limit ${limits.indexOf(c.limit) + 1}` : '<strong>no</strong>';
    return `<tr>${head}${num(m.cancelDepth)}${num(m.ackMs)}${num(m.settleMs)}<td class="num">${ghostsAgree(m, t.ghostCommits) ? escapeHtml(ghostText(m)) : `<strong>${escapeHtml(ghostText(m))}</strong> / ${t.ghostCommits}`}</td>${t.orphans === undefined ? num(m.orphanToolCalls) : pair(m.orphanToolCalls, t.orphans)}${pair(m.replayDuplicates, t.replays)}${pair(m.modelCallsAfterStop, t.modelCallsStarted)}<td class="num">${m.outputTokensAfterStop} / ${t.outputTokensSent}</td>${t.nextTurnFailed === undefined ? num(m.nextTurnErrors) : pair(m.nextTurnErrors, t.nextTurnFailed ? 1 : 0)}<td class="num">${t.steering === undefined ? '–' : `${m.steering.violations}, ${m.steering.dropped}`}</td><td>${marked(guardedText(c.guarded))}</td><td>${marked(tracedText(c.traced))}</td><td>${verdict}</td></tr>`;
  });
  const ran = card.cells.filter((c) => c.ran);
  return `${pageStart(`afterstop cancel scorecard, ${card.date}`)}
<header><h1>The cancel scorecard</h1>
<dl><div><dt>measured</dt><dd>${escapeHtml(card.date)}</dd></div><div><dt>Node</dt><dd>${escapeHtml(card.node)}</dd></div><div><dt>took</dt><dd>${Math.round(card.durationMs / 1000)} s</dd></div>
${Object.entries(card.versions)
  .map(([p, v]) => `<div><dt>${escapeHtml(p)}</dt><dd>${escapeHtml(v)}</dd></div>`)
  .join('')}</dl></header>
<section><h2>Each framework stopped at each moment</h2>
<p>afterstop's figures from <code>leak-report</code>; after a slash, the ground truth the local model and side-effect server recorded, when they differ.</p>
<div class="scroll"><table>
<thead><tr><th>framework</th><th>Stop</th><th class="num">depth</th><th class="num">ack ms</th><th class="num">settle ms</th><th class="num">ghost commits (possible)</th><th class="num">orphans</th><th class="num">replays</th><th class="num">model calls after Stop</th><th class="num">tokens after Stop / sent</th><th class="num">next-turn errors</th><th class="num">steering violations, dropped</th><th>with guard (fence, idempotency keys)</th><th>service traced (its clock ${escapeHtml(TRACED_SHIFT.replace(/^-/, ''))} behind)</th><th>afterstop = truth</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table></div>
<p>${ran.filter((c) => c.agrees === true).length} of ${ran.length} agree with the ground truth.</p>
${limits.length > 0 ? `<h2>Known limits</h2><ol>${limits.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ol>` : ''}
</section>
<p class="muted">npm run scorecard: each framework's real package under node --import afterstop/register.</p>
</body>
</html>
`;
}
