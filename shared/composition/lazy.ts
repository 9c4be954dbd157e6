/** A value built on first use and kept: the composition's adapters and use cases are singletons per process. */
export function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= build());
}

/**
 * Runs `task` at most once successfully: concurrent callers share the attempt in flight, and a failed
 * attempt is forgotten so the next caller tries again (a Cosmos blip at start-up must not leave the
 * instance without its bootstrap client until it restarts).
 */
export function onceUntilSuccess(task: () => Promise<void>): () => Promise<void> {
  let attempt: Promise<void> | undefined;
  let done = false;
  return () => {
    if (done) return Promise.resolve();
    attempt ??= task().then(
      () => {
        done = true;
      },
      (error: unknown) => {
        attempt = undefined;
        throw error;
      },
    );
    return attempt;
  };
}
