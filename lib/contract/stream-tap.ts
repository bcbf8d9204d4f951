/**
 * A stream's chunks passed on one by one through a synchronous function, as a TransformStream would, at less cost:
 * each chunk is read when the reader asks for one (no queue, no pipe), so a chunk costs one read instead of a pipe's
 * read, write and transform. Every chunk of a turn goes through several such stages, and a server running several
 * sessions' turns does all of them on one thread.
 * - `each` maps a chunk (return it to pass it on unchanged); a throw errors the stream and cancels the source;
 * - `end` runs when the source ends normally (as a TransformStream's flush: not when it errs or is cancelled);
 * - cancelling the result cancels the source, and the source's error errors the result.
 */
export function tapStream<I, O = I>(source: ReadableStream<I>, each: (chunk: I) => O, end?: () => void): ReadableStream<O> {
  const reader = source.getReader();
  return new ReadableStream<O>(
    {
      async pull(controller) {
        const r = await reader.read();
        if (r.done) {
          end?.();
          controller.close();
          return;
        }
        let out: O;
        try {
          out = each(r.value);
        } catch (err) {
          void reader.cancel(err).catch(() => {});
          throw err;
        }
        controller.enqueue(out);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
