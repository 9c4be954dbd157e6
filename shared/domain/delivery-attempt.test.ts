import { describe, expect, it } from "vitest";
import {
  appendAttempt,
  attemptEntry,
  LOG_RESPONSE_BYTES,
  MAX_ATTEMPT_LOG,
  shownAttempt,
  type StoredAttempt,
} from "./delivery-attempt";

const attempt = (n: number, bodyBytes: number): StoredAttempt =>
  attemptEntry({
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
    statusCode: 502,
    error: "the endpoint answered 502",
    durationMs: 12.4,
    requestHeaders: { "webhook-id": "msg_1", "webhook-signature": "v1,abc" },
    response: { headers: { "content-type": "text/html" }, body: "x".repeat(bodyBytes) },
  });

describe("a delivery's attempt log", () => {
  it("keeps the newest 25 attempts, and their answers newest first within 16 KB in all (a record is rewritten per attempt)", () => {
    let log: StoredAttempt[] = [];
    for (let n = 0; n < 40; n++) log = appendAttempt(log, attempt(n, 4096));
    expect(log).toHaveLength(MAX_ATTEMPT_LOG);
    expect(log[0]?.at).toBe("2026-01-01T00:00:15.000Z");
    const kept = log.filter((a) => a.response !== undefined);
    expect(kept.length).toBe(3); // 3 × (4 KB body + headers) fit 16 KB, a fourth would not
    expect(log.slice(-3).every((a) => a.response?.body.length === 4096)).toBe(true);
    for (const a of log.slice(0, -3)) expect(a).toMatchObject({ statusCode: 502, responseOmitted: true });
    expect(Buffer.byteLength(JSON.stringify(log))).toBeLessThan(LOG_RESPONSE_BYTES + MAX_ATTEMPT_LOG * 300);
  });

  it("small answers are all kept", () => {
    let log: StoredAttempt[] = [];
    for (let n = 0; n < 10; n++) log = appendAttempt(log, attempt(n, 20));
    expect(log.every((a) => a.response?.body === "x".repeat(20) && a.responseOmitted === undefined)).toBe(true);
  });

  it("shows each attempt with the body that was sent (kept once, with the delivery), rounded durations", () => {
    const shown = shownAttempt(attempt(1, 2), '{"id":"msg_1"}');
    expect(shown).toEqual({
      at: "2026-01-01T00:00:01.000Z",
      statusCode: 502,
      error: "the endpoint answered 502",
      durationMs: 12,
      request: { headers: { "webhook-id": "msg_1", "webhook-signature": "v1,abc" }, body: '{"id":"msg_1"}' },
      response: { headers: { "content-type": "text/html" }, body: "xx" },
    });
    // An entry from before attempts kept what was sent shows the body and no headers.
    expect(shownAttempt({ at: "2026-01-01T00:00:00.000Z", durationMs: 3 }, "{}")).toEqual({
      at: "2026-01-01T00:00:00.000Z",
      durationMs: 3,
      request: { headers: {}, body: "{}" },
    });
  });
});
