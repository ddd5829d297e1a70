import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { huntRuns, huntSeed } from '../../test/helpers/hunt.js';
import { analyzeTraces, writeLines } from '../../test/helpers/trace-builder.js';

/**
 * Never more certain than the evidence: over the golden traces and recorded framework runs (the scorecard's
 * apps under `--import afterstop/register`, test/fixtures/recorded), with any subset of the commit markers, the
 * tool spans (a tool span is exported when it ends) and the acks removed — as a crash or a lost export leaves
 * them — no figure claims more certainty than the spans left: a run's cancel depth never rises, no ghost commit
 * becomes known that the whole trace did not know, and no orphan tool call disappears.
 */
const fixtures = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const files = ['golden', 'ai-sdk', 'recorded'].flatMap((d) =>
  fs.existsSync(path.join(fixtures, d))
    ? fs
        .readdirSync(path.join(fixtures, d))
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => path.join(fixtures, d, f))
    : [],
);

type Removable = 'commit' | 'tool_end' | 'ack';
interface Unit {
  line: string;
  kind: Removable | null;
}

interface OtlpSpan {
  name: string;
  attributes?: { key: string; value: { stringValue?: string } }[];
}
interface OtlpLine {
  resourceSpans: { resource?: unknown; scopeSpans: { scope?: unknown; spans: OtlpSpan[] }[] }[];
}

function kindOf(span: OtlpSpan): Removable | null {
  if (span.name === 'afterstop.tool.commit') return 'commit';
  if (span.name === 'afterstop.cancel.ack') return 'ack';
  const op = span.attributes?.find((a) => a.key === 'gen_ai.operation.name')?.value.stringValue;
  if (op === 'execute_tool' || span.name === 'ai.toolCall') return 'tool_end';
  return null;
}

/** Every span of the files as a line of its own, marked when it is one a crash or a lost export may take. */
function units(): Unit[] {
  const out: Unit[] = [];
  for (const file of files) {
    for (const text of fs.readFileSync(file, 'utf8').split('\n')) {
      if (text.trim() === '') continue;
      const request = JSON.parse(text) as OtlpLine;
      for (const rs of request.resourceSpans) {
        for (const ss of rs.scopeSpans) {
          for (const span of ss.spans) {
            out.push({ line: JSON.stringify({ resourceSpans: [{ resource: rs.resource, scopeSpans: [{ scope: ss.scope, spans: [span] }] }] }), kind: kindOf(span) });
          }
        }
      }
    }
  }
  return out;
}

interface Figures {
  depth: Map<string, number>;
  known: Set<string>;
  orphans: Set<string>;
  /** The tool calls some span names (run/call id): the calls the report can know of at all. */
  named: Set<string>;
}

async function figuresOf(lines: string[]): Promise<Figures> {
  const a = await analyzeTraces([writeLines(lines)]);
  try {
    const depth = new Map((await a.table('report_cancel_depth')).map((r) => [String(r['run_id']), Number(r['depth'])]));
    const known = new Set((await a.table('report_ghost_commits', 'WHERE possible_kind IS NULL AND NOT inferred')).map((r) => `${String(r['run_id'])}/${String(r['tool_call_id'] ?? r['span_id'])}`));
    const orphans = new Set((await a.table('report_tool_outcomes', 'WHERE lost')).map((r) => `${String(r['run_id'])}/${String(r['call_id'])}`));
    const named = new Set((await a.table('tool_call_facts')).map((r) => `${String(r['run_id'])}/${String(r['call_id'])}`));
    return { depth, known, orphans, named };
  } finally {
    a.close();
  }
}

/** What the fewer spans claim beyond what the whole trace did: each a broken promise, in words. */
function moreCertain(whole: Figures, part: Figures): string[] {
  const broken: string[] = [];
  for (const [run, d] of part.depth) {
    const was = whole.depth.get(run);
    if (was !== undefined && d > was) broken.push(`run ${run}: depth ${was} rose to ${d}`);
  }
  for (const k of part.known) if (!whole.known.has(k)) broken.push(`ghost ${k} became known`);
  // A call no span left names (a foreign trace whose only record of it was the tool span lost) cannot be reported
  // at all; its run is then held below depth 4 as a foreign trace (prepare-cancel-depth.sql). Every call a span
  // still names keeps its orphan.
  for (const o of whole.orphans) if (part.named.has(o) && !part.orphans.has(o)) broken.push(`orphan ${o} disappeared`);
  return broken;
}

let all: Unit[];
let whole: Figures;
let removable: number[];
beforeAll(async () => {
  all = units();
  whole = await figuresOf(all.map((u) => u.line));
  removable = all.flatMap((u, i) => (u.kind === null ? [] : [i]));
});

const without = (gone: ReadonlySet<number>): string[] => all.filter((_, i) => !gone.has(i)).map((u) => u.line);
const allOf = (kind: Removable): Set<number> => new Set(removable.filter((i) => all[i]!.kind === kind));

describe('no figure claims more certainty than the spans left', () => {
  it('the fixtures hold what the property needs: cancelled runs, commits, tool spans, acks, orphans and ghosts', () => {
    expect(files.length).toBeGreaterThan(8);
    for (const kind of ['commit', 'tool_end', 'ack'] as const) expect(allOf(kind).size, kind).toBeGreaterThan(2);
    expect(whole.depth.size).toBeGreaterThan(5);
    expect(whole.known.size).toBeGreaterThan(0);
    expect(whole.orphans.size).toBeGreaterThan(0);
  });

  for (const kinds of [['commit'], ['tool_end'], ['ack'], ['commit', 'tool_end', 'ack']] as Removable[][]) {
    it(`every ${kinds.join(', ')} span removed`, async () => {
      const gone = new Set(kinds.flatMap((k) => [...allOf(k)]));
      expect(moreCertain(whole, await figuresOf(without(gone)))).toEqual([]);
    });
  }

  // Each case is an analyze of about a second: the unit tier tries the first 3 of the e2e tier's 12. The subsets
  // are new each vitest run (one seed for both tiers); CERTAINTY_SEED repeats the one a failure prints.
  const runs = huntRuns('CERTAINTY_RUNS', { unit: 3, full: 12 });
  it(
    'any subset removed (fast-check)',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.subarray(removable, { minLength: 1 }), async (gone) => {
          expect(moreCertain(whole, await figuresOf(without(new Set(gone))))).toEqual([]);
        }),
        { numRuns: runs, ...huntSeed('CERTAINTY_SEED') },
      );
    },
    Math.max(120_000, runs * 3000),
  );
});

afterAll(() => {
  all = [];
});
