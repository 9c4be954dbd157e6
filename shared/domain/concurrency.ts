import pLimit from "p-limit";

/** Maps with at most `limit` calls in flight; results keep the input order. */
export function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const run = pLimit(Math.max(1, limit));
  return Promise.all(items.map((item, index) => run(() => fn(item, index))));
}
