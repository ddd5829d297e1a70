import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's "How to add a metric" and "How to add a framework" list every file a new one
 * touches. This follows an existing metric and an existing framework through the repository: every file
 * that names it (sources, generated files, docs, the kit; not tests) must be one the guide lists, and
 * every path the guide lists must exist. A guide that forgets a place, or names one that moved, fails.
 */
const root = fileURLToPath(new URL('../', import.meta.url));
const doc = fs.readFileSync(path.join(root, 'docs', 'architecture.md'), 'utf8');

function section(title: string): string {
  const start = doc.indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/architecture.md has no section "${title}"`);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

/** The paths a section names: `code` spans that look like paths, and the targets of its links (from docs/). */
function listed(text: string): string[] {
  const code = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1] ?? '').filter((p) => /\//.test(p) || /\.(ts|sql|md|json|yml|mjs)$/.test(p));
  const links = [...text.matchAll(/\]\((\.{1,2}\/[^)#\s]+)\)/g)].map((m) => path.relative(root, path.join(root, 'docs', m[1] ?? '')));
  return [...new Set([...code, ...links])];
}

/** A listed path as a pattern over repository paths: `<name>` and `*` any part of a name, a folder all it holds. */
function pattern(p: string): RegExp {
  const body = p
    .split(/(<[a-z-]+>|\*)/)
    .map((part) => (part.startsWith('<') || part === '*' ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}${p.endsWith('/') ? '' : '$'}`);
}

const SEARCHED = ['contract', 'instrumentation', 'analyzer', 'scorecard', 'bench', 'demo', 'docs', 'test/fixtures', 'README.md', 'package.json'];
const SKIPPED = /(^|\/)(node_modules|dist|test)\/|^docs\/benchmarks\.|^test\/fixtures\/(golden|store-v\d+)\//;

function files(): string[] {
  const out: string[] = [];
  const walk = (rel: string): void => {
    const abs = path.join(root, rel);
    if (!fs.existsSync(abs)) return;
    if (fs.statSync(abs).isFile()) {
      out.push(rel);
      return;
    }
    for (const entry of fs.readdirSync(abs)) {
      const child = path.posix.join(rel, entry);
      if (!SKIPPED.test(`${child}/`) || (child.startsWith('test/fixtures/') && !SKIPPED.test(child.replace(/^test\//, 'x/')))) walk(child);
    }
  };
  for (const top of SEARCHED) walk(top);
  return out.filter((f) => !SKIPPED.test(f.startsWith('test/fixtures/') ? f.replace(/^test\//, 'x/') : f));
}

const everyFile = files();
const naming = (word: RegExp): string[] => everyFile.filter((f) => word.test(fs.readFileSync(path.join(root, f), 'utf8')));

describe.each([
  ['How to add a metric', [/\borphan_tool_calls\b/, /\btokens_after_stop\b/]],
  ['How to add a framework', [/\bmastra\b/i, /\blanggraph\b/i]],
] as const)('the guide "%s"', (title, examples) => {
  const paths = listed(section(title));

  it('names only paths that exist', () => {
    expect(paths.length).toBeGreaterThan(8);
    const concrete = paths.filter((p) => !/[<*]/.test(p));
    expect(concrete.filter((p) => !fs.existsSync(path.join(root, p)))).toEqual([]);
  });

  it.each(examples.map((e) => [e.source, e]))('lists every file that names an existing one (%s)', (_, word) => {
    const found = naming(word);
    expect(found.length).toBeGreaterThan(3);
    const patterns = paths.map(pattern);
    expect(found.filter((f) => !patterns.some((p) => p.test(f)))).toEqual([]);
  });
});
