import * as dc from 'node:diagnostics_channel';
import { createRequire } from 'node:module';
import { isWrapped } from '@opentelemetry/instrumentation';
import { describe, expect, it } from 'vitest';
import { HttpCommitInstrumentation } from '../../auto/http-commits.js';
import { enabledInstrumentations, modulesOf } from '../../auto/registry.js';
import { OpenAIInstrumentation, OPENAI_VERSIONS } from '../../auto/openai.js';

describe('the auto-instrumentation registry', () => {
  it('all by default; a list; none; minus the disabled ones; an unknown name is left out', () => {
    expect(enabledInstrumentations({})).toEqual([
      'http-commits',
      'openai',
      'anthropic',
      'ai-sdk',
      'openai-agents',
      'langgraph',
      'llamaindex-workflows',
      'mastra',
      'mcp',
      'mcp-server',
      'claude-agent-sdk',
      'child-processes',
    ]);
    expect(enabledInstrumentations({ AFTERSTOP_INSTRUMENTATIONS: 'openai' })).toEqual(['openai']);
    expect(enabledInstrumentations({ AFTERSTOP_INSTRUMENTATIONS: 'none' })).toEqual([]);
    expect(enabledInstrumentations({ AFTERSTOP_DISABLED_INSTRUMENTATIONS: 'openai' })).toEqual([
      'http-commits',
      'anthropic',
      'ai-sdk',
      'openai-agents',
      'langgraph',
      'llamaindex-workflows',
      'mastra',
      'mcp',
      'mcp-server',
      'claude-agent-sdk',
      'child-processes',
    ]);
    // An unknown name is left out (said on stderr once), the known ones kept.
    expect(enabledInstrumentations({ AFTERSTOP_INSTRUMENTATIONS: 'langchain,openai' })).toEqual(['openai']);
    expect(enabledInstrumentations({ AFTERSTOP_DISABLED_INSTRUMENTATIONS: 'opeani' })).toContain('openai');
    expect(modulesOf(['openai'])).toEqual(['openai']);
    expect(modulesOf(['http-commits', 'anthropic'])).toEqual(['@anthropic-ai/sdk']);
  });

  it('the openai patch is version-bounded and reversible', () => {
    expect(OPENAI_VERSIONS).toEqual(['>=4.13.0 <8']);
    const instrumentation = new OpenAIInstrumentation({ enabled: false });
    instrumentation.enable();
    const require = createRequire(import.meta.url);
    const openai = require('openai') as { OpenAI: { Chat: { Completions: { prototype: { create: unknown } } }; Responses: { prototype: { create: unknown } } } };
    const protos = [openai.OpenAI.Chat.Completions.prototype, openai.OpenAI.Responses.prototype];
    expect(protos.map((p) => isWrapped(p.create))).toEqual([true, true]);
    instrumentation.disable();
    expect(protos.map((p) => isWrapped(p.create))).toEqual([false, false]);
  });

  it('the HTTP commit detector patches nothing: enable() subscribes to the diagnostics channels, disable() lets go', () => {
    const channels = ['undici:request:create', 'undici:request:headers', 'http.client.request.start'].map((n) => dc.channel(n));
    expect(channels.map((c) => c.hasSubscribers)).toEqual([false, false, false]);
    const detector = new HttpCommitInstrumentation();
    detector.enable();
    detector.enable();
    expect(channels.map((c) => c.hasSubscribers)).toEqual([true, true, true]);
    detector.disable();
    expect(channels.map((c) => c.hasSubscribers)).toEqual([false, false, false]);
  });
});
