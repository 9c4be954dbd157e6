import { AppError } from "../domain/errors";

/** `from` after `to` is a client mistake worth naming rather than an empty list. */
export function checkRange(from: string | undefined, to: string | undefined): void {
  if (from !== undefined && to !== undefined && from > to) {
    throw new AppError("INVALID_REQUEST", "from must not be after to", {
      details: [{ field: "from", message: `${from} is after to (${to})` }],
    });
  }
}
