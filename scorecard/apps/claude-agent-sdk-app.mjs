// A user's app on the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`), as its docs write one: `query()`
// with an abortController, the Bash tool allowed, nothing of afterstop's in the code. Run by the tests as
// `node --import afterstop/register claude-agent-sdk-app.mjs <scenario>` with SIM_URL pointing at the
// simulator (the Claude Code CLI the SDK spawns speaks to it through ANTHROPIC_BASE_URL). The model asks for
// a Bash command that waits, then POSTs an e-mail to the simulator's effect service (a `node -e` the CLI's
// shell starts: the app's grandchild); the user presses Stop (aborts) while it waits.
//   tool-ignores   the command waits 300 ms: the CLI (which the SDK signals only 2 s after the abort) finishes
//                  it, the e-mail goes out after Stop, and the CLI makes its next model call after Stop
//   long-command   the command starts a worker in a session of its own (`setsid`, in a subshell: reparented at
//                  once) that sends 3 s later, and waits 5 s: the CLI, signalled 2 s after the abort, kills
//                  the command's process tree and dies; the worker, out of that tree, lives on and sends
//   text           Stop during the model's stream (the app reads the partial messages, as a chat UI does)
//   no-stop        no Stop: the command waits 3 s, then the e-mail goes and the model answers
//   interrupt      the Stop is the Query's interrupt() while the command waits 1 s
//   mcp-tool       the app's own tool (an in-process MCP server, `createSdkMcpServer`) POSTs the e-mail, which
//                  the service commits 400 ms later; Stop 50 ms into the POST: the tool ignores it (with
//                  PREPARE_MS, it composes the mail that long first, and sends after the Stop)
import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { z } from 'zod';

const scenario = process.argv[2];
const now = () => BigInt(Math.round((performance.timeOrigin + performance.now()) * 1e6)).toString();
const out = { scenario, pid: process.pid, messages: [] };
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'claude-home-'));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Bash command that waits `ms`, then sends the e-mail (its only output is the service's answer). */
const mailCommand = (ms) =>
  `node -e "setTimeout(() => fetch('${process.env.SIM_URL}/effects/send_email', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to: 'alice@example.com' }) }).then((r) => r.text()).then(console.log), ${ms})"`;
const bash = (ms) => `[[tool:Bash ${JSON.stringify({ command: mailCommand(ms), description: 'Send the e-mail' })}]]`;
/** The same e-mail sent by a worker the command starts in the background (a subshell and a session of its own: out of the CLI's reach), then waits 5 s. */
const bashWorker = (ms) => `[[tool:Bash ${JSON.stringify({ command: `(setsid ${mailCommand(ms)} > /dev/null 2>&1 &); sleep 5`, description: 'Send the e-mail' })}]]`;

/** Heard of when the e-mail tool starts its POST (the Stop follows it). */
let onToolStart = () => {};
const mail = createSdkMcpServer({
  name: 'mail',
  version: '1.0.0',
  tools: [
    tool(
      'send_email',
      'Send an e-mail',
      { to: z.string() },
      async (input) => {
        onToolStart();
        // PREPARE_MS: the tool composes its mail first, ignoring the Stop, and sends after it.
        if (process.env.PREPARE_MS) await sleep(Number(process.env.PREPARE_MS));
        const response = await fetch(`${process.env.SIM_URL}/effects/send_email?delayMs=400`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input) });
        return { content: [{ type: 'text', text: JSON.stringify(await response.json()) }] };
      },
      { annotations: { destructiveHint: true } },
    ),
  ],
});

async function turn(prompt, { stopWhen, partial = false, mcp = false, controller, interrupt = false }) {
  const abortController = controller ?? new AbortController();
  abortController.signal.addEventListener('abort', () => (out.stopNs ??= now()));
  const options = {
    abortController,
    model: 'claude-sonnet-4-5',
    maxTurns: 3,
    ...(mcp ? { tools: [], mcpServers: { mail }, allowedTools: ['mcp__mail__send_email'] } : { tools: ['Bash'], allowedTools: ['Bash'] }),
    ...(partial ? { includePartialMessages: true } : {}),
    env: { ...process.env, ANTHROPIC_BASE_URL: process.env.SIM_URL, ANTHROPIC_API_KEY: 'sk-test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', HOME: home },
  };
  let stopping = false;
  try {
    const q = query({ prompt, options });
    for await (const m of q) {
      out.messages.push(m.subtype ? `${m.type}:${m.subtype}` : m.type);
      if (m.type === 'result') out.costUsd = m.total_cost_usd;
      const delay = stopping ? undefined : stopWhen(m);
      if (delay !== undefined) {
        stopping = true;
        setTimeout(() => {
          out.stopNs = now();
          if (interrupt) void q.interrupt();
          else abortController.abort();
        }, delay);
      }
    }
  } catch (e) {
    out.error = e.message;
  }
}

const hasToolUse = (m) => m.type === 'assistant' && m.message.content.some((b) => b.type === 'tool_use');
if (scenario === 'tool-ignores') {
  // Stop 100 ms after the model asked for the command, which waits 300 ms: the CLI has most of its 2 s left to
  // finish it and stream its next model call.
  await turn(`E-mail the customer. ${bash(300)} [[tokens:10]]`, { stopWhen: (m) => (hasToolUse(m) ? 100 : undefined) });
  // The e-mail lands after the turn gave up: wait for it, as a server process lives on.
  await sleep(2500);
} else if (scenario === 'long-command') {
  await turn(`E-mail the customer. ${bashWorker(3000)} [[tokens:5]]`, { stopWhen: (m) => (hasToolUse(m) ? 300 : undefined) });
  // The app lives on past the command's 3 s (an e-mail would land by then) and the grace period.
  await sleep(4000);
} else if (scenario === 'mcp-tool') {
  const stop = new AbortController();
  onToolStart = () => setTimeout(() => stop.abort(), 50);
  // Stop 50 ms into the tool's POST: the service commits at 400 ms, after Stop.
  await turn('E-mail the customer. [[tool:mcp__mail__send_email {"to":"alice@example.com"}]] [[tokens:5]]', { mcp: true, stopWhen: () => undefined, controller: stop });
  // The e-mail lands after the turn gave up: wait for it, as a server process lives on.
  await sleep(1500);
} else if (scenario === 'interrupt') {
  // The user's Stop is the Query's interrupt(), 100 ms after the model asked for the command, which waits 1 s.
  await turn(`E-mail the customer. ${bash(1000)} [[tokens:5]]`, { interrupt: true, stopWhen: (m) => (hasToolUse(m) ? 100 : undefined) });
  await sleep(1500);
} else if (scenario === 'no-stop') {
  // No Stop of the user's: the command waits 3 s (the guard's deadline, when set, is what stops the turn).
  await turn(`E-mail the customer. ${bash(3000)} [[tokens:5]]`, { stopWhen: () => undefined });
} else if (scenario === 'text') {
  // Stop 300 ms into the model's stream of 300 tokens.
  await turn('Tell me a long story. [[tokens:300]]', { partial: true, stopWhen: (m) => (m.type === 'stream_event' && m.event.type === 'content_block_delta' ? 300 : undefined) });
  await sleep(500);
} else {
  throw new Error(`unknown scenario ${scenario}`);
}
fs.rmSync(home, { recursive: true, force: true });
console.log(JSON.stringify(out));
