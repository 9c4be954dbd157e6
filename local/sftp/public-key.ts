import { timingSafeEqual } from "node:crypto";
import { utils, type AuthContext, type ParsedKey } from "ssh2";

/**
 * Whether a public-key login offers one of `lines` (OpenSSH public keys): without a signature the
 * client only asks whether the key would do; with one, the signature must verify.
 */
export function publicKeyMatches(
  ctx: Extract<AuthContext, { method: "publickey" }>,
  lines: readonly string[],
): boolean {
  for (const line of lines) {
    const parsed = utils.parseKey(line);
    if (parsed instanceof Error) continue;
    // Typed as one key; a file of several keys parses to an array.
    const key: ParsedKey | undefined = Array.isArray(parsed) ? (parsed as ParsedKey[])[0] : parsed;
    if (key === undefined || key.type !== ctx.key.algo) continue;
    const known = key.getPublicSSH();
    if (known.length !== ctx.key.data.length || !timingSafeEqual(known, ctx.key.data)) continue;
    if (ctx.signature === undefined || ctx.blob === undefined) return true;
    return key.verify(ctx.blob, ctx.signature, ctx.hashAlgo) === true;
  }
  return false;
}
