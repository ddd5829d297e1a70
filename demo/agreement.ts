/**
 * Whether afterstop's record and the simulator's ledger agree, fact by fact. Each comparison ends in a
 * verdict: they agree; they differ as expected (the difference is one the two sides' vantage points
 * explain, and the explanation is checked, not assumed); or they disagree, said as such.
 */
import type { FlatSpan } from '@afterstop/analyzer';
import type { EffectRecord, LedgerSnapshot, ModelRequestRecord } from '@afterstop/analyzer/simulator';

export type Verdict = 'agree' | 'expected difference' | 'DISAGREE';

export interface Comparison {
  verdict: Verdict;
  /** What is compared, with both figures. */
  text: string;
  /** Why the figures differ, and which one the report uses (differences only). */
  why?: string;
}

const ms = (ns: bigint): number => Math.round(Number(ns) / 1e6);
const str = (v: unknown): string => (v === undefined || v === null ? '' : String(v));
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : undefined);

/** One line of the demo's output: `agree: …`, `expected difference: … (why)`, `DISAGREE: …`. */
export function formatComparison(c: Comparison): string {
  return `${c.verdict}: ${c.text}${c.why ? `\n      why: ${c.why}` : ''}`;
}

/** The Stop (its cancel request span) of the run `span` belongs to, among `cancels`. */
export const stopOfRun = (cancels: readonly FlatSpan[], span: FlatSpan): FlatSpan | undefined =>
  cancels.find((c) => c.name === 'afterstop.cancel.request' && c.attributes['afterstop.run.id'] === span.attributes['afterstop.run.id']);

/** afterstop's commit mark of an effect the ledger saw: its tool's, with its Idempotency-Key (none of `used`). */
export const commitMarkOf = (marks: readonly FlatSpan[], effect: EffectRecord, used: ReadonlySet<FlatSpan> = new Set()): FlatSpan | undefined =>
  marks.find((m) => !used.has(m) && m.attributes['gen_ai.tool.name'] === effect.name && str(m.attributes['afterstop.tool.idempotency_key']) === (effect.idempotencyKey ?? ''));

/** Compares afterstop's spans of the runs against the ledger of the same simulator, fact by fact. */
export function compareWithLedger(spans: readonly FlatSpan[], ledger: LedgerSnapshot): Comparison[] {
  const cancels = spans.filter((s) => s.name === 'afterstop.cancel.request').sort((a, b) => Number(a.startNs - b.startNs));
  const calls = spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'chat').sort((a, b) => Number(a.startNs - b.startNs));
  const requests = [...ledger.modelRequests].sort((a, b) => Number(a.startNs - b.startNs));
  const out: Comparison[] = [];

  // Model calls, one to one: afterstop's model call spans and the requests the provider received, in order.
  if (calls.length !== requests.length) {
    out.push({ verdict: 'DISAGREE', text: `model requests: afterstop ${calls.length} model calls, ledger ${requests.length} requests` });
  } else {
    out.push({ verdict: 'agree', text: `model requests: afterstop ${calls.length} model calls, ledger ${requests.length} requests` });
    const pairs = calls.map((span, i) => ({ span, request: requests[i]! }));
    out.push(...compareAnswered(pairs.filter((p) => p.span.attributes['afterstop.model.usage_source'] === 'provider')));
    for (const { span, request } of pairs) {
      if (span.attributes['error.type'] !== undefined || request.status >= 400) out.push(compareRefused(span, request));
      else if (span.attributes['afterstop.model.aborted'] === true || request.clientClosedEarly) out.push(...compareStopped(span, request, stopOfRun(cancels, span)));
    }
  }

  out.push(...compareCommits(spans, ledger.effects, cancels));

  for (const repair of spans.filter((s) => s.name === 'afterstop.history.repair')) {
    const ids = (repair.attributes['afterstop.repair.tool_call_ids'] as string[] | undefined) ?? [];
    const next = requests.find((r) => r.startNs >= repair.startNs);
    const carried = next?.toolResultIds;
    const text = `history repaired: afterstop answered ${ids.join(', ')} with a synthetic result, ledger: the next request carried results for ${carried?.join(', ') || 'none'}`;
    out.push({ verdict: next !== undefined && next.status < 400 && ids.every((id) => carried?.includes(id)) ? 'agree' : 'DISAGREE', text });
  }
  return out;
}

/** Calls answered in full: the usage the provider reported to the client is the ledger's bill. */
function compareAnswered(pairs: readonly { span: FlatSpan; request: ModelRequestRecord }[]): Comparison[] {
  if (pairs.length === 0) return [];
  const sum = (f: (p: { span: FlatSpan; request: ModelRequestRecord }) => number): number => pairs.reduce((n, p) => n + f(p), 0);
  const input = [sum((p) => num(p.span.attributes['gen_ai.usage.input_tokens']) ?? Number.NaN), sum((p) => p.request.inputTokens)] as const;
  const output = [sum((p) => num(p.span.attributes['gen_ai.usage.output_tokens']) ?? Number.NaN), sum((p) => p.request.outputTokensGenerated)] as const;
  const each = pairs.every((p) => num(p.span.attributes['gen_ai.usage.input_tokens']) === p.request.inputTokens && num(p.span.attributes['gen_ai.usage.output_tokens']) === p.request.outputTokensGenerated);
  return [
    {
      verdict: each ? 'agree' : 'DISAGREE',
      text: `tokens of the ${pairs.length} calls answered in full: afterstop ${input[0]} in / ${output[0]} out (the provider's usage), ledger ${input[1]} in / ${output[1]} out billed${each ? '' : ' (call by call they differ)'}`,
    },
  ];
}

/** A request the provider refused: afterstop's error is the ledger's status, and nothing was billed. */
function compareRefused(span: FlatSpan, request: ModelRequestRecord): Comparison {
  const status = str(span.attributes['error.type']);
  const agree = status === String(request.status) && request.outputTokensGenerated === 0 && request.inputTokens === 0;
  return {
    verdict: agree ? 'agree' : 'DISAGREE',
    text: `a request refused: afterstop error ${status || 'none'}, ledger status ${request.status}${request.error ? ` (${request.error.length > 80 ? `${request.error.slice(0, 80)}…` : request.error})` : ''}, ${request.outputTokensGenerated + request.inputTokens} tokens billed`,
  };
}

/** A stream the Stop cut: what reached the client (afterstop) against what the provider sent and billed (ledger). */
function compareStopped(span: FlatSpan, request: ModelRequestRecord, cancel: FlatSpan | undefined): Comparison[] {
  const streamed = num(span.attributes['afterstop.model.output_tokens_streamed']);
  const afterStop = num(span.attributes['afterstop.model.output_tokens_after_cancel']);
  if (streamed === undefined || afterStop === undefined || cancel === undefined || !request.clientClosedEarly) {
    return [
      {
        verdict: 'DISAGREE',
        text: `a stopped stream: afterstop ${streamed ?? '?'} tokens streamed (aborted: ${str(span.attributes['afterstop.model.aborted'])}), ledger ${request.outputTokensSent} sent (client closed early: ${request.clientClosedEarly})`,
      },
    ];
  }
  const stopNs = cancel.startNs;
  const sent = request.outputTokensSent;
  const sentAfterStop = request.outputTokensSentNs.filter((t) => t > stopNs).length;
  const generated = request.outputTokensGenerated;
  const out: Comparison[] = [];

  // 1. Tokens that reached the client: afterstop can count no more than the provider sent.
  const unread = sent - streamed;
  out.push(
    unread === 0
      ? { verdict: 'agree', text: `the stopped stream's tokens that reached the client: afterstop ${streamed}, ledger ${sent} sent` }
      : unread > 0
        ? {
            verdict: 'expected difference',
            text: `the stopped stream's tokens that reached the client: afterstop ${streamed}, ledger ${sent} sent`,
            why: `the last ${unread} the provider wrote were still on the wire when the client closed: sent, never read`,
          }
        : { verdict: 'DISAGREE', text: `the stopped stream: afterstop counted ${streamed} tokens, more than the ${sent} the ledger sent` },
  );

  // 2. Tokens after Stop: read after Stop (afterstop) against sent after Stop (ledger); consistent only if no more were read before Stop than were sent before it.
  const consistent = streamed - afterStop <= sent - sentAfterStop && afterStop <= streamed;
  out.push(
    afterStop === sentAfterStop
      ? { verdict: 'agree', text: `tokens of the stream after Stop: afterstop ${afterStop} arrived, ledger ${sentAfterStop} sent` }
      : consistent
        ? {
            verdict: 'expected difference',
            text: `tokens of the stream after Stop: afterstop ${afterStop} arrived, ledger ${sentAfterStop} sent`,
            why:
              afterStop > sentAfterStop
                ? `${afterStop - sentAfterStop} sent before Stop arrived after it: afterstop counts a token when the client reads it, the ledger when the provider writes it`
                : `${sentAfterStop - afterStop} written after Stop never reached the closing client`,
          }
        : { verdict: 'DISAGREE', text: `tokens of the stream after Stop: afterstop ${afterStop} arrived (of ${streamed}), ledger ${sentAfterStop} sent after Stop (of ${sent})` },
  );

  // 3. The bill: the provider bills what it generated, the token being produced when the client left included (one at most).
  const unsent = generated - sent;
  const billedAfterStop = sentAfterStop + unsent;
  const text = `the stopped stream's output tokens: ledger ${generated} generated (billed); afterstop ${streamed} (counted as they reached the client: an aborted stream reports no usage)`;
  if (unsent < 0 || unsent > 1) {
    out.push({ verdict: 'DISAGREE', text: `the stopped stream: ledger ${generated} generated but ${sent} sent: ${unsent} tokens unaccounted for (0 or 1 is expected)` });
  } else if (generated === streamed) out.push({ verdict: 'agree', text });
  else {
    const parts = [
      `${streamed} reached the client`,
      ...(unread > 0 ? [`${unread} sent but never read`] : []),
      ...(unsent > 0 ? ['1 generated after the client had closed: billed, never sent, so no client can count it'] : []),
    ];
    out.push({
      verdict: 'expected difference',
      text,
      why:
        `${generated} billed = ${parts.join(' + ')}. The report's tokens after Stop for this call (${afterStop}) is afterstop's count of those that arrived after Stop; ` +
        `the provider billed ${billedAfterStop} after Stop, so the report's figure (and the ghost tax priced from it) is a floor${billedAfterStop > afterStop ? `, short by ${billedAfterStop - afterStop}` : ''}`,
    });
  }
  return out;
}

/** Effects: each commit the ledger saw against afterstop's commit marks, matched by tool and Idempotency-Key. */
function compareCommits(spans: readonly FlatSpan[], effects: readonly EffectRecord[], cancels: readonly FlatSpan[]): Comparison[] {
  const marks = spans.filter((s) => s.name === 'afterstop.tool.commit');
  const used = new Set<FlatSpan>();
  const out: Comparison[] = [];
  for (const effect of effects.filter((e) => e.outcome === 'committed' && e.committedNs !== null)) {
    const mark = commitMarkOf(marks, effect, used);
    if (!mark) {
      out.push({ verdict: 'DISAGREE', text: `${effect.name} committed (ledger), afterstop recorded no commit` });
      continue;
    }
    used.add(mark);
    const committedNs = effect.committedNs!;
    // The Stop of the run whose tool made it (another run's Stop says nothing of this commit).
    const stop = cancels.find((c) => c.attributes['afterstop.run.id'] === mark.attributes['afterstop.run.id'] && c.startNs <= committedNs);
    const state = str(mark.attributes['afterstop.cancel.state']);
    const afterStop = stop !== undefined;
    const gap = ms(mark.startNs - committedNs);
    const when = stop ? `after Stop (afterstop ${ms(mark.startNs - stop.startNs)} ms, ledger ${ms(committedNs - stop.startNs)} ms` : `before any Stop of its run (afterstop run state ${state}`;
    // The same commit, read twice: the service when it commits, afterstop when the tool has the receipt, so never before it.
    const agree = (afterStop ? state !== 'none' : state === 'none') && mark.startNs >= committedNs;
    out.push({
      verdict: agree ? 'agree' : 'DISAGREE',
      text: agree
        ? `${effect.name} committed ${when}: the two clocks read the same commit ${gap} ms apart, the service as it commits, afterstop when the tool has the receipt)`
        : `${effect.name} committed ${when}; afterstop's mark ${gap} ms from the ledger's commit, run state ${state})`,
    });
  }
  for (const mark of marks.filter((m) => !used.has(m))) {
    out.push({ verdict: 'DISAGREE', text: `afterstop recorded a commit of ${str(mark.attributes['gen_ai.tool.name'])} the ledger has not` });
  }
  return out;
}
