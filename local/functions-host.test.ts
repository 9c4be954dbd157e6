import { describe, expect, it } from "vitest";
import { Logger } from "../shared/logging";
import { parseTraceparent, traceIdOf } from "../shared/observability/trace-context";
import { registerHook } from "./functions-core";
import { invoke, type LoadedFunction } from "./functions-host";

interface Seen {
  traceparent: string | undefined;
  inputs: unknown[];
}

const lines: string[] = [];
const log = new Logger("debug", (_level, line) => void lines.push(line));

/** A function that records the trace context its invocation was given. */
const recorder = (seen: Seen[]): LoadedFunction => ({
  name: "records",
  trigger: { type: "serviceBusTrigger", direction: "in" },
  handler: (...args: unknown[]) => {
    const context = args.at(-1) as { traceContext?: { traceParent?: string } };
    seen.push({ traceparent: context.traceContext?.traceParent, inputs: args.slice(0, -1) });
    return "result";
  },
});

describe("the local host's invocations (telemetry off)", () => {
  it("continue the trigger's trace, or start a new one per invocation, and log each run with its operation id", async () => {
    const seen: Seen[] = [];
    const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    await invoke(recorder(seen), [{ n: 1 }], { log, parent, ownSpan: true });
    await invoke(recorder(seen), [{ n: 2 }], { log, ownSpan: true });
    await invoke(recorder(seen), [{ n: 3 }], { log, ownSpan: true });
    expect(seen[0]?.traceparent).toBe(parent);
    const [second, third] = [seen[1]?.traceparent, seen[2]?.traceparent].map((t) => parseTraceparent(t));
    expect(second).toBeDefined();
    expect(third).toBeDefined();
    expect(traceIdOf(second ?? "")).not.toBe(traceIdOf(third ?? ""));
    expect(
      lines
        .map((l) => JSON.parse(l) as { message: string; traceId: string; outcome: string })
        .filter((l) => l.message === "function executed")
        .map((l) => [l.traceId, l.outcome]),
    ).toEqual([
      [traceIdOf(parent), "succeeded"],
      [traceIdOf(second ?? ""), "succeeded"],
      [traceIdOf(third ?? ""), "succeeded"],
    ]);
  });

  it("run the registered preInvocation hooks as the worker does", async () => {
    const seen: Seen[] = [];
    const calls: string[] = [];
    const pre = registerHook("preInvocation", (context) => {
      const invocation = context.invocationContext as { traceContext?: { traceParent?: string } };
      calls.push(`pre ${invocation.traceContext?.traceParent ?? "none"}`);
      const callback = context.functionCallback as (...args: unknown[]) => unknown;
      // What the Application Insights distro does: the callback runs bound to the invocation's trace context.
      context.functionCallback = (...args: unknown[]) => {
        calls.push("bound callback");
        return callback(...args);
      };
      context.inputs = [{ replaced: true }];
    });
    try {
      const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      expect(await invoke(recorder(seen), [{ n: 1 }], { log, parent })).toBe("result");
      expect(calls).toEqual([`pre ${parent}`, "bound callback"]);
      expect(seen).toEqual([{ traceparent: parent, inputs: [{ replaced: true }] }]);
    } finally {
      pre.dispose();
    }
    await invoke(recorder(seen), [{ n: 2 }], { log });
    expect(calls).toHaveLength(2);
  });
});
