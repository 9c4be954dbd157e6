import { describe, expect, it } from "vitest";
import {
  checkAccount,
  checkDocuments,
  PINNED_STAND_IN_VERSION,
  standInClasses,
  type StandInAccount,
  type StandInDocuments,
} from "./stand-in-internals";

describe("the reach into @vercel/cosmosdb-server's internals", () => {
  it("finds every member it uses in the pinned version", () => {
    const { accountModule, Documents } = standInClasses();
    expect(typeof accountModule.default).toBe("function");
    expect(typeof Documents.prototype).toBe("object");
    expect(PINNED_STAND_IN_VERSION).toBe("1.0.1");
  });

  it("fails loudly, naming what is missing, when the shape differs", () => {
    expect(() => checkDocuments({ _data: new Map() } as unknown as StandInDocuments)).toThrow(
      /collection\.documents\._ridCount is not a number.*written against version 1\.0\.1/,
    );
    expect(() => checkAccount({ databases: {} } as unknown as StandInAccount)).toThrow(
      /account\.databases\._data is not a Map/,
    );
  });
});
