import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import { RESPONSE_BODY_BYTES, type AttemptResponse } from "../../domain/delivery-attempt";

/** What an answer's headers may take in a delivery's log: a hostile endpoint can send 16 KB of them. */
const HEADER_BYTES = 4096;
const HEADER_VALUE_CHARACTERS = 1024;

/** NUL cannot be stored everywhere a log may go one day; a lone surrogate cannot come out of a UTF-8 decoder. */
const storable = (text: string): string => text.replaceAll("\u0000", "\uFFFD");

/** The answer's headers as text, in the order they came, until HEADER_BYTES are used; long values cut. */
export function boundedHeaders(raw: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  let bytes = 0;
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const text = storable((Array.isArray(value) ? value.join(", ") : value).slice(0, HEADER_VALUE_CHARACTERS));
    bytes += name.length + text.length + 4;
    if (bytes > HEADER_BYTES) break;
    kept[name] = text;
  }
  return kept;
}

/**
 * How long the log waits for an answer's body after its status line: a body that trickles delays the
 * attempt's outcome by at most this much, and the log keeps what came by then.
 */
const LOG_WAIT_MS = 300;

/**
 * Reads the first RESPONSE_BODY_BYTES of an answer's body: resolves with what came by the body's end,
 * that limit or LOG_WAIT_MS after the status line, whichever is first. Reading goes on (discarding) up
 * to `drainBytes` so that the connection can be reused, and the answer is dropped beyond it or when it
 * has not ended after `drainMs`.
 */
export function captureAnswer(
  response: IncomingMessage,
  drainMs: number,
  drainBytes: number,
): Promise<AttemptResponse> {
  const headers = boundedHeaders(response.headers);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let read = 0;
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      const body = Buffer.concat(chunks, kept);
      resolve({
        headers,
        body: storable(new TextDecoder("utf-8", { fatal: false }).decode(body)),
        ...(read > RESPONSE_BODY_BYTES ? { bodyTruncated: true } : {}),
      });
    };
    const logged = setTimeout(finish, LOG_WAIT_MS);
    const slow = setTimeout(() => response.destroy(), drainMs);
    response.on("data", (chunk: Buffer) => {
      read += chunk.length;
      if (kept < RESPONSE_BODY_BYTES) {
        const part = chunk.subarray(0, RESPONSE_BODY_BYTES - kept);
        chunks.push(part);
        kept += part.length;
      }
      if (read > RESPONSE_BODY_BYTES) finish();
      if (read > drainBytes) response.destroy();
    });
    const ended = (): void => {
      clearTimeout(logged);
      clearTimeout(slow);
      finish();
    };
    response.on("end", ended);
    response.on("close", ended);
    response.on("error", ended);
  });
}
