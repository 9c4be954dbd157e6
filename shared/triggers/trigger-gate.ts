import { configProblem } from "../config";

let reported = false;

/**
 * Whether the app registers its triggers other than HTTP (queues, timers, the blob trigger, the change
 * feed): only when its settings are usable. With a setting it cannot use (an unresolved Key Vault
 * reference), its HTTP functions still register and answer 503 (shared/http/pipeline.ts) while the
 * work waits where it is (queue messages, change feeds, blob events Event Grid retries) instead of
 * failing each delivery on the way to a dead-letter queue. The first refusal names the settings in
 * the log; the process restarts (and registers everything) when the app settings are fixed.
 */
export function triggersEnabled(): boolean {
  const problem = configProblem();
  if (problem === undefined) return true;
  if (!reported) {
    reported = true;
    console.error(
      `The app's settings are unusable, so only its HTTP functions register (they answer 503 SERVICE_UNAVAILABLE) and its queue, timer, blob and change-feed triggers do not. Settings at fault: ${problem.settings.join(", ")}. ${problem.message}`,
    );
  }
  return false;
}
