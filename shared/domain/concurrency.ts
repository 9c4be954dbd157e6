import pLimit from "p-limit";

/** Maps with at most `limit` calls in flight; results keep the input order. */
export function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const run = pLimit(Math.max(1, limit));
  return Promise.all(items.map((item, index) => run(() => fn(item, index))));
}

/**
 * At most `limit` holders at once in this process: `tryAcquire` gives a release function, or
 * undefined when all are taken (the caller refuses rather than queues). For work whose memory is this
 * process's own, such as parsing an uploaded file.
 */
export class Slots {
  private taken = 0;

  constructor(readonly limit: number) {}

  tryAcquire(): (() => void) | undefined {
    if (this.taken >= this.limit) return undefined;
    this.taken += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.taken -= 1;
    };
  }
}
