import { utils } from "ssh2";

/**
 * A new Ed25519 key pair in OpenSSH format that ssh2 itself can read. ssh2's generator now and then
 * (about 1 key in 160 here) writes a private key its own parser refuses as "Malformed OpenSSH
 * private key", which then fails a login at random; such a pair is made again.
 */
export function ed25519KeyPair(): { private: string; public: string } {
  for (let attempt = 0; attempt < 10; attempt++) {
    const keys = utils.generateKeyPairSync("ed25519");
    if (!(utils.parseKey(keys.private) instanceof Error)) return keys;
  }
  throw new Error("ssh2 generated 10 Ed25519 keys it cannot read");
}
