import type { UIMessageChunk } from 'ai';

/**
 * What the model has written in the current step so far (text and reasoning), followed from the UI
 * message stream, so a call stored before it runs (write-ahead) carries the words that led to it.
 */
export class StepDraft {
  private parts: Array<{ type: 'step-start' } | { type: 'text' | 'reasoning'; text: string }> = [];
  private open = new Map<string, { type: 'text' | 'reasoning'; text: string }>();

  see(chunk: UIMessageChunk): void {
    switch (chunk.type) {
      case 'start-step':
        this.parts = [{ type: 'step-start' }];
        this.open.clear();
        return;
      case 'text-start':
      case 'reasoning-start': {
        const part = { type: chunk.type === 'text-start' ? ('text' as const) : ('reasoning' as const), text: '' };
        this.parts.push(part);
        this.open.set(`${part.type}:${chunk.id}`, part);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const part = this.open.get(`${chunk.type === 'text-delta' ? 'text' : 'reasoning'}:${chunk.id}`);
        if (part) part.text += chunk.delta;
        return;
      }
      default:
        return;
    }
  }

  /** The step's parts so far (copies). */
  snapshot(): unknown[] {
    return this.parts.map((p) => ({ ...p }));
  }
}
