// A user's app on the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`), run by the tests as
// `node --import afterstop/register claude-agent-sdk-app.mjs <scenario>` with SIM_URL pointing at
// the simulator (the Claude Code CLI the SDK spawns speaks to it through ANTHROPIC_BASE_URL). The app
// wraps its turn in afterstop's manual API (a run whose signal is the Stop), as an app does for a
// framework afterstop does not instrument. Its send_email tool (an in-process MCP tool of the SDK) POSTs
// to the simulator's effect service, which commits 400 ms later whether or not the client waits.
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { startRun } from 'afterstop';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';

const scenario = process.argv[2];
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario, messages: [] };
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-home-'));

/** Heard of when the e-mail tool starts its POST (the Stop follows it). */
let onToolStart = () => {};
const mail = createSdkMcpServer({
  name: 'mail',
  version: '1.0.0',
  tools: [
    // The tool ignores the Stop: the e-mail goes after it.
    tool('send_email', 'Send an e-mail', { to: z.string() }, async (input) => {
      onToolStart();
      const response = await fetch(`${process.env.SIM_URL}/effects/send_email?delayMs=400`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(input),
      });
      return { content: [{ type: 'text', text: JSON.stringify(await response.json()) }] };
    }),
  ],
});

async function turn(prompt, abortController) {
  const run = startRun({ agentName: 'claude', signal: abortController.signal });
  try {
    const options = {
      abortController,
      model: 'claude-sonnet-4-5',
      maxTurns: 3,
      mcpServers: { mail },
      allowedTools: ['mcp__mail__send_email'],
      tools: [],
      env: { ...process.env, ANTHROPIC_BASE_URL: process.env.SIM_URL, ANTHROPIC_API_KEY: 'sk-test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', HOME: home },
    };
    for await (const m of query({ prompt, options })) out.messages.push(m.subtype ? `${m.type}:${m.subtype}` : m.type);
    run.end();
  } catch (e) {
    out.error = e.name;
    run.end({ error: e });
  }
}

const EMAIL = '[[tool:mcp__mail__send_email {"to":"alice@example.com"}]]';
if (scenario === 'tool-ignores') {
  // Stop 50 ms into the tool's POST: the service commits at 400 ms, after Stop.
  const stop = new AbortController();
  onToolStart = () =>
    setTimeout(() => {
      out.stopNs = now();
      stop.abort();
    }, 50);
  await turn(`E-mail the customer. ${EMAIL} [[tokens:5]]`, stop);
  // The e-mail lands after the turn gave up: wait for it, as a server process lives on.
  await new Promise((resolve) => setTimeout(resolve, 600));
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
fs.rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify(out));
