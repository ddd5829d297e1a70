import { MOMENTS } from './scenarios.js';
import { ghostsAgree, ghostText, guardedText, TRACED_MOMENTS, TRACED_SHIFT, tracedText, type Marked, type Scorecard } from './scorecard.js';

const ms = (v: number | null | undefined): string => (v === null || v === undefined ? '–' : String(Math.round(v)));
const pair = (a: number, b: number): string => (a === b ? String(a) : `**${a}** / ${b}`);
const cellText = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const marked = (parts: Marked[]): string => cellText(parts.map((p) => (p.strong ? `**${p.text}**` : p.text)).join(''));

/**
 * The scorecard as Markdown: one line per framework and Stop moment.
 * Figures with a ground truth read `afterstop` when they agree, and
 * `**afterstop** / truth` when they do not.
 */
export function renderScorecard(card: Scorecard): string {
  // Disagreements explained by a known limit, numbered in the order they appear.
  const limits = [...new Set(card.cells.filter((c) => c.ran && c.agrees === false && c.limit !== undefined).map((c) => c.limit!))];
  const lines = [
    `Measured ${card.date} on Node ${card.node} by \`npm run scorecard\` (${Math.round(card.durationMs / 1000)} s): each framework's real package, run under \`node --import afterstop/register\` against the local model and side-effect server, stopped at each moment; afterstop's figures from \`leak-report\` over the traces, beside what the server recorded.`,
    '',
    `Versions: ${Object.entries(card.versions)
      .map(([p, v]) => `${p} ${v}`)
      .join(', ')}.`,
    '',
    '| framework | Stop | depth | ack ms | settle ms | ghost commits (possible) | orphans | replays | model calls after Stop | tokens after Stop | next-turn errors | steering violations, dropped | with guard | service traced | afterstop = truth |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of card.cells) {
    const head = `| ${cellText(c.framework)} | ${MOMENTS[c.moment]} `;
    if (!c.ran || c.measured === undefined || c.truth === undefined) {
      lines.push(`${head}| did not run: ${cellText(c.error ?? 'unknown')} | | | | | | | | | | | | |`);
      continue;
    }
    const m = c.measured;
    const t = c.truth;
    lines.push(
      `${head}| ${m.cancelDepth ?? '–'} | ${ms(m.ackMs)} | ${ms(m.settleMs)} | ${ghostsAgree(m, t.ghostCommits) ? ghostText(m) : `**${ghostText(m)}** / ${t.ghostCommits}`} | ${t.orphans === undefined ? `${m.orphanToolCalls}` : pair(m.orphanToolCalls, t.orphans)} | ${pair(m.replayDuplicates, t.replays)} | ${pair(m.modelCallsAfterStop, t.modelCallsStarted)} | ${m.outputTokensAfterStop === t.outputTokensSent ? String(m.outputTokensAfterStop) : `${m.outputTokensAfterStop} / ${t.outputTokensSent}`} | ${t.nextTurnFailed === undefined ? `${m.nextTurnErrors}` : pair(m.nextTurnErrors, t.nextTurnFailed ? 1 : 0)} | ${t.steering === undefined ? '–' : `${pair(m.steering.violations, t.steering.violations)}, ${pair(m.steering.dropped, t.steering.dropped)}`} | ${marked(guardedText(c.guarded))} | ${marked(tracedText(c.traced))} | ${c.agrees === true ? 'yes' : c.limit !== undefined ? `no: known limit ${limits.indexOf(c.limit) + 1}` : '**no**'} |`,
    );
  }
  const ran = card.cells.filter((c) => c.ran);
  lines.push(
    '',
    `${ran.filter((c) => c.agrees === true).length} of ${ran.length} agree with the ground truth (ghost commits: every known one landed after Stop and every one that landed is known or possible; replays, model calls after Stop and, where the app keeps a conversation, takes a next turn or steers, the orphan tool calls, whether the turn failed and where the steering message went, equal; tokens after Stop within 10%, at least 2 tokens).`,
  );
  const guarded = card.cells.filter((c) => c.guarded?.ran === true);
  if (guarded.length > 0) {
    const g = guarded.map((c) => c.guarded!);
    const sum = (f: (x: (typeof g)[number]) => number): number => g.reduce((n, x) => n + f(x), 0);
    lines.push(
      '',
      `With guard: each cell run again with \`AFTERSTOP_GUARD_FENCE=true AFTERSTOP_GUARD_IDEMPOTENCY_HOSTS=*\`. Side effects that landed after Stop: ${sum((x) => x.truth!.ghostCommits)} with the guard against ${ran.reduce((n, c) => n + (c.truth?.ghostCommits ?? 0), 0)} without; commits the fence prevented: ${sum((x) => x.measured!.commitsPrevented)}; replays the service refused as a repeated key: ${sum((x) => x.truth!.deduplicated)}, and done twice: ${sum((x) => x.truth!.replays)}; ${g.filter((x) => x.agrees === true).length} of ${g.length} guarded runs agree with the ground truth${g.some((x) => x.unchanged !== undefined) ? `; of the ${g.filter((x) => x.unchanged !== undefined).length} without a Stop, ${g.filter((x) => x.unchanged === true).length} unchanged` : ''}.`,
    );
  }
  const traced = card.cells.filter((c) => c.traced?.ran === true).map((c) => c.traced!);
  if (traced.length > 0) {
    const sum = (f: (x: (typeof traced)[number]) => number): number => traced.reduce((n, x) => n + f(x), 0);
    lines.push(
      '',
      `Service traced: each "${TRACED_MOMENTS.map((m) => MOMENTS[m]).join('" and "')}" cell run again with its tool's effect service traced by OpenTelemetry's Node SDK (HTTP instrumentation, a database span around its write) in its own process, its clock ${TRACED_SHIFT.replace(/^-/, '')} behind the app's (libfaketime), its spans through an OTLP/HTTP receiver's file beside the app's traces: ${sum((x) => x.measured!.ghostCommits)} known ghost commits (${sum((x) => x.confirmed ?? 0)} confirmed by the service), ${sum((x) => x.measured!.possibleGhostCommits)} possible, ${sum((x) => x.ruledOut ?? 0)} ruled out, against ${sum((x) => x.truth!.ghostCommits)} that landed after Stop; ${traced.filter((x) => x.joined === true).length} of ${traced.length} joined the tool's request; ${traced.filter((x) => x.agrees === true).length} of ${traced.length} agree with the ground truth.`,
    );
  }
  if (limits.length > 0) lines.push('', 'Known limits:', ...limits.map((l, i) => `${i + 1}. ${l}`));
  lines.push('');
  return lines.join('\n');
}
