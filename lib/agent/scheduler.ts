import type { SideEffect } from '../contract/types';

/**
 * Orders the tool calls of a turn: reads run concurrently; a write or command waits for every call
 * issued before it, and every call issued after it waits for it. So a step with five reads and two
 * edits of one file ends as issued, while the reads still overlap. Calls are scheduled in the order
 * the model issued them (the SDK starts them in that order).
 */
export class CallScheduler {
  private barrier: Promise<void> = Promise.resolve();
  private sinceBarrier: Promise<void>[] = [];

  /** Run fn when its turn comes; resolves or rejects with fn's result. */
  schedule<T>(effect: SideEffect, fn: () => Promise<T>): Promise<T> {
    const settled = <U>(p: Promise<U>) => p.then(
      () => undefined,
      () => undefined,
    );
    if (effect === 'read') {
      const p = this.barrier.then(fn);
      this.sinceBarrier.push(settled(p));
      return p;
    }
    const before = Promise.all([this.barrier, ...this.sinceBarrier]);
    const p = before.then(fn);
    this.barrier = settled(p);
    this.sinceBarrier = [];
    return p;
  }
}
