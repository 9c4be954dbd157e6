import { utils } from "ssh2";
import { describe, expect, it } from "vitest";
import { ed25519KeyPair } from "./ssh-key-pair";

describe("ed25519KeyPair", () => {
  it("gives only keys ssh2 can read (its own generator makes an unreadable one about once in 160)", () => {
    for (let i = 0; i < 1000; i++) {
      const keys = ed25519KeyPair();
      expect(utils.parseKey(keys.private)).not.toBeInstanceOf(Error);
      expect(keys.public).toMatch(/^ssh-ed25519 /);
    }
  });
});
