/**
 * A wait whose failure also says what `explain` tells (a runtime's output, the blobs left): computed
 * only when the wait fails, not on each of its polls.
 */
export async function withDiagnostics<T>(wait: Promise<T>, explain: () => string | Promise<string>): Promise<T> {
  try {
    return await wait;
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${await explain()}`, { cause: error });
  }
}
