import type { LanguageModel } from 'ai';
import type { ClampMessage } from '../contract/protocol';

/** The model a session wants for its next step. */
export interface StepModel {
  /** the model id (as the ledger records it) */
  id: string;
  model: LanguageModel;
}

/** The model that answered the conversation's latest step (its ledger says), if any. */
export function lastAnsweringModel(messages: readonly ClampMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const parts = messages[i].parts;
    for (let j = parts.length - 1; j >= 0; j--) {
      const p = parts[j];
      if (p.type === 'data-ledger' && p.data.model) return p.data.model;
      if (p.type === 'data-model-switch') return p.data.to;
    }
  }
  return null;
}

/**
 * Before each step: the model the session wants now (read fresh, so a switch on the page takes
 * effect at the next step), and a data-model-switch part when it is not the one that answered last.
 * forStep returns the model for the step when it differs from the turn's own, else undefined; id is the
 * model answering now (the ledger records it).
 */
export function stepModelSwitcher(o: {
  turnModelId: string | null;
  stored: readonly ClampMessage[];
  want: () => StepModel | null;
  wrap: (m: LanguageModel) => LanguageModel;
  record: (from: string, to: string) => void;
}): { forStep: () => LanguageModel | undefined; id: () => string | null } {
  let last = lastAnsweringModel(o.stored);
  let current: LanguageModel | undefined;
  let currentId = o.turnModelId;
  const forStep = () => {
    const want = o.want();
    if (want && want.id !== currentId) {
      currentId = want.id;
      current = o.wrap(want.model);
    }
    if (currentId && last && currentId !== last) o.record(last, currentId);
    if (currentId) last = currentId;
    return current;
  };
  return { forStep, id: () => currentId };
}
