import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withScorecard } from '../../scorecard/main.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const main = fileURLToPath(new URL('../../dist/scorecard/main.js', import.meta.url));

describe('npm run scorecard', () => {
  it('replaces only what is between the README markers, and names the file that has none', () => {
    const readme = 'intro\n<!-- scorecard:start -->\nold\n<!-- scorecard:end -->\nrest\n';
    expect(withScorecard('README.md', readme, '| new |\n')).toBe('intro\n<!-- scorecard:start -->\n| new |\n<!-- scorecard:end -->\nrest\n');
    expect(() => withScorecard('NOTES.md', 'no markers', 'x')).toThrow(/NOTES\.md has no <!-- scorecard:start -->/);
    const table = '| framework | Stop | depth | x | afterstop = truth |\n|---|---|---|---|---|\n| A | m | 3 | 0 | yes |\n| A | n | 4 | 0 | no |\n';
    const page = withScorecard('README.md', 'a\n<!-- scorecard-summary:start -->\nold\n<!-- scorecard-summary:end -->\n', table);
    expect(page).toContain('1 of 2 measurements agree');
    expect(page).toContain('| A | 2 | 3–4 | 1 of 2 |');
  });

  it('--framework runs only the matching rows; one that matches none, or an unknown option, exits 2 with the reason on stderr', () => {
    const one = spawnSync(process.execPath, [main, '--framework', 'anthropic'], { cwd: root, encoding: 'utf8' });
    expect(one.status).toBe(0);
    expect(one.stdout).toContain('| @anthropic-ai/sdk, Messages | during the model stream |');
    expect(one.stdout).not.toContain('Vercel AI SDK');
    expect(one.stderr).toContain('[1/1]');
    const none = spawnSync(process.execPath, [main, '--framework', 'crewai'], { cwd: root, encoding: 'utf8' });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('no framework matches --framework crewai');
    const bad = spawnSync(process.execPath, [main, '--format', 'x'], { cwd: root, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("unknown option '--format'");
  });
});
