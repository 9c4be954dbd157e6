import { describe, expect, it } from "vitest";
import { AppError } from "../domain/errors";
import { Logger } from "../logging";
import { errorResult } from "./error-response";

describe("errorResult", () => {
  it("answers an unexpected error with a bare 500 and logs the detail", () => {
    const lines: string[] = [];
    const log = new Logger("debug", (_level, line) => lines.push(line));
    const result = errorResult(new Error("connection string AccountKey=secret at db.query"), "req-1", log);
    expect(result.status).toBe(500);
    expect(result.body).toEqual({
      error: { code: "INTERNAL_ERROR", message: "An unexpected error occurred", requestId: "req-1" },
    });
    expect(JSON.stringify(result.body)).not.toContain("secret");
    expect(lines.join("\n")).toContain("AccountKey=secret");
    expect(lines.join("\n")).toContain("req-1");
  });

  it("keeps an AppError's code, details and headers", () => {
    const error = new AppError("VALIDATION_ERROR", "bad", {
      details: [{ field: "x", message: "y" }],
      headers: { "X-A": "1" },
    });
    const result = errorResult(error, "req-2", new Logger("error", () => {}));
    expect(result).toEqual({
      status: 422,
      body: {
        error: {
          code: "VALIDATION_ERROR",
          message: "bad",
          details: [{ field: "x", message: "y" }],
          requestId: "req-2",
        },
      },
      headers: { "X-A": "1" },
    });
  });

  it("does not leak the cause of a 503", () => {
    const result = errorResult(
      new AppError("SERVICE_UNAVAILABLE", "busy", { cause: new Error("internal host db-7") }),
      "r",
      new Logger("error", () => {}),
    );
    expect(result.status).toBe(503);
    expect(JSON.stringify(result.body)).not.toContain("db-7");
  });
});
