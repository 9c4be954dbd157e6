import { describe, expect, it } from "vitest";
import { baseNameOf, inboundNameOf, scheduledRunId } from "./blob-source-run";

describe("blob source runs and copied versions", () => {
  it("a due time of a source is one run id, whoever claims it", () => {
    expect(scheduledRunId("bs_1", "2026-03-01T06:30:00.000Z")).toBe(scheduledRunId("bs_1", "2026-03-01T06:30:00.000Z"));
    expect(scheduledRunId("bs_1", "2026-03-01T06:30:00.000Z")).not.toBe(
      scheduledRunId("bs_1", "2026-03-02T06:30:00.000Z"),
    );
    expect(scheduledRunId("bs_1", "2026-03-01T06:30:00.000Z")).not.toBe(
      scheduledRunId("bs_2", "2026-03-01T06:30:00.000Z"),
    );
    expect(scheduledRunId("bs_1", "2026-03-01T06:30:00.000Z")).toMatch(/^bsr_[0-9a-f]{24}$/);
  });

  it("a version lands on a name of its own under the feed's folder, the same every time it is copied", () => {
    const v1 = inboundNameOf("fd_a", "bs_1", "daily/prices-1.csv", '"0x8DD1"');
    expect(v1).toMatch(/^fd_a\/[0-9a-f]{16}\/daily\/prices-1\.csv$/);
    expect(inboundNameOf("fd_a", "bs_1", "daily/prices-1.csv", '"0x8DD1"')).toBe(v1);
    expect(inboundNameOf("fd_a", "bs_1", "daily/prices-1.csv", '"0x8DD2"')).not.toBe(v1);
    expect(inboundNameOf("fd_a", "bs_2", "daily/prices-1.csv", '"0x8DD1"')).not.toBe(v1);
    expect(baseNameOf(v1)).toBe("prices-1.csv");
    expect(baseNameOf("prices-1.csv")).toBe("prices-1.csv");
  });
});
