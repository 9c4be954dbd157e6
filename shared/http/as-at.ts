import { services } from "../composition";
import { resolveAsAt } from "../domain/versions";

/** The instant an `asAt` query parameter names, checked against the service's clock (400 naming asAt in the future). */
export const asAtOf = (raw: string | undefined): string | undefined => resolveAsAt(raw, services().clock.now());

/** The `X-As-At` header of an answer given as at an instant. */
export const asAtHeaders = (asAt: string | undefined): Record<string, string> =>
  asAt === undefined ? {} : { "X-As-At": asAt };

/** The header's documentation, for the responses of the reads that take `asAt`. */
export const asAtResponseHeader = {
  "X-As-At": "When asAt was given: the instant the answer is as at (UTC, milliseconds)",
};
