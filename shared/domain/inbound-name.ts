/*
 * Names of inbound files that no store of ours can hold. A noncharacter (U+FDD0–U+FDEF, U+xFFFE and
 * U+xFFFF of every plane) or an unpaired surrogate is not Unicode text for interchange: XML cannot
 * carry it (the storage emulator fails every listing that would show it), the storage SDKs throw on it
 * in a path, and the replica cannot keep it as a job's fileName; nor can NUL. U+FFFD is what an SFTP
 * server decodes a name's invalid UTF-8 (an unpaired surrogate among it) to: such a name is not the
 * provider's name any more, and two of them could collide.
 */

const UNHOLDABLE = /[\0\p{Cs}\p{Noncharacter_Code_Point}\uFFFD]/u;
const UNHOLDABLE_ALL = /[\0\p{Cs}\p{Noncharacter_Code_Point}\uFFFD]/gu;

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** Why an inbound file name cannot be kept (its first such character, named), or undefined when it can. */
export function inboundNameProblem(name: string): string | undefined {
  const m = UNHOLDABLE.exec(name);
  if (m === null) return undefined;
  const cp = m[0].codePointAt(0) ?? 0;
  if (cp === 0) return "holds U+0000 (NUL)";
  if (cp === 0xfffd) return "holds U+FFFD (what invalid UTF-8, such as an unpaired surrogate, decodes to)";
  if (cp >= 0xd800 && cp <= 0xdfff) return `holds an unpaired surrogate (${hex(cp)})`;
  return `holds the Unicode noncharacter ${hex(cp)}`;
}

/** The name with each such character written `\u{XXXX}`: how a job or a log line may quote it. */
export const printableName = (name: string): string =>
  UNHOLDABLE.test(name) ? name.replace(UNHOLDABLE_ALL, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`) : name;
