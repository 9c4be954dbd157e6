import { describe, expect, it } from "vitest";
import type { AuditSubject } from "./settings-audit";
import { auditDraft } from "./settings-changes";

interface Item {
  id: string;
  name: string;
  status: string;
  disabledReason?: string;
  tags: string[];
  target: { host: string; password?: string; key?: { pem: string } };
  tokenHash: string;
  updatedAt: string;
}
/** Shows what an answer would: no password, no key, no hash. */
const subject: AuditSubject<Item> = {
  type: "export",
  name: (i) => i.name,
  publicView: ({ target, tokenHash: _hash, ...rest }) => ({
    ...rest,
    target: { host: target.host, hasPassword: target.password !== undefined },
  }),
};
const item: Item = {
  id: "ex_1",
  name: "daily",
  status: "enabled",
  tags: ["a"],
  target: { host: "h1", password: "s3cret" },
  tokenHash: "hash-1",
  updatedAt: "2026-01-01T00:00:00.000Z",
};

describe("auditDraft", () => {
  it("shows public fields from and to; anything else that changed is redacted, whatever its path", () => {
    const draft = auditDraft(subject, "ex_1", item, {
      ...item,
      name: "nightly",
      tags: ["a", "b"],
      target: { host: "h2", password: "other", key: { pem: "-----BEGIN" } },
      tokenHash: "hash-2",
      updatedAt: "2026-01-02T00:00:00.000Z",
    });
    expect(draft).toEqual({
      action: "updated",
      resource: { type: "export", id: "ex_1", name: "nightly" },
      changes: [
        { field: "name", from: "daily", to: "nightly" },
        { field: "tags", from: ["a"], to: ["a", "b"] },
        { field: "target.host", from: "h1", to: "h2" },
        { field: "target.password", from: "(redacted)", to: "(redacted)" },
        { field: "token", from: "(redacted)", to: "(redacted)" },
        { field: "target.key.pem", from: "(redacted)", to: "(redacted)" },
      ],
    });
    expect(JSON.stringify(draft)).not.toMatch(/s3cret|other|hash-|BEGIN/);
  });

  it("names the action: created, deleted, rotated, enabled, disabled; nothing changed is no entry", () => {
    expect(auditDraft(subject, "ex_1", undefined, item)?.action).toBe("created");
    expect(auditDraft(subject, "ex_1", undefined, item)?.changes).toContainEqual({
      field: "target.password",
      from: null,
      to: "(redacted)",
    });
    expect(auditDraft(subject, "ex_1", item, undefined)?.action).toBe("deleted");
    expect(auditDraft(subject, "ex_1", item, { ...item, tokenHash: "hash-2" })?.action).toBe("rotated");
    expect(auditDraft(subject, "ex_1", item, { ...item, status: "disabled", disabledReason: "failing" })?.action).toBe(
      "disabled",
    );
    expect(auditDraft(subject, "ex_1", { ...item, status: "paused" }, item)?.action).toBe("enabled");
    expect(auditDraft(subject, "ex_1", item, { ...item, updatedAt: "2026-02-01T00:00:00.000Z" })).toBeUndefined();
    expect(auditDraft(subject, "ex_1", item, item, { action: "rotated", secrets: ["password"] })).toEqual({
      action: "rotated",
      resource: { type: "export", id: "ex_1", name: "daily" },
      changes: [{ field: "password", from: "(redacted)", to: "(redacted)" }],
    });
  });
});
