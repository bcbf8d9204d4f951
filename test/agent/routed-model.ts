import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { createScriptedModel, type ScriptTurn } from '../../lib/agent/scripted-model';

/** The text of a prompt's messages of one role, joined. */
export function promptText(o: LanguageModelV3CallOptions, role?: 'system' | 'user' | 'assistant' | 'tool'): string {
  return o.prompt
    .filter((m) => !role || m.role === role)
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n');
}

/**
 * A scripted model for a parent and its children: a request whose system prompt says it is a subagent
 * plays the child script whose key its task (first user message) contains; any other plays the parent's.
 * Every request is recorded, with who made it.
 */
export function routedModel(parent: ScriptTurn[], children: Record<string, ScriptTurn[]>) {
  const requests: { who: string; options: LanguageModelV3CallOptions; at: number }[] = [];
  // the scripted provider itself plays a subagent's turns by the key its task contains
  const scripted = createScriptedModel(Object.assign([...parent], { subagents: children }));
  const pick = (o: LanguageModelV3CallOptions): string => {
    if (!promptText(o, 'system').includes('You are a subagent')) return 'parent';
    const task = o.prompt.find((m) => m.role === 'user');
    const text = task ? JSON.stringify(task.content) : '';
    return Object.keys(children).find((k) => text.includes(k)) ?? 'parent';
  };
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'scripted',
    modelId: 'routed',
    supportedUrls: {},
    doGenerate: (o) => scripted.doGenerate(o),
    doStream: (o) => {
      requests.push({ who: pick(o), options: o, at: Date.now() });
      return scripted.doStream(o);
    },
  };
  return { model, requests };
}
