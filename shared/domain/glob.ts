/**
 * File-name globs matched in linear time: `*`, `?`, `[...]` and `{a,b}` compiled to a small NFA and
 * run as a Pike VM (every live state advanced together, one code point at a time), so matching a name
 * of n code points against a pattern of m costs at most about n × m steps whatever the pattern, where
 * a backtracking regular expression (`*-*-*-*-*.csv` against a name of dashes) is exponential.
 *
 * Grammar: `*` any run of characters, `?` one character, `[abc]` `[a-z]` `[[:digit:]]` one of a set,
 * `[!abc]` or `[^abc]` one not in it (`]` first in a set and `-` first or last are members), `{a,b}`
 * any of the alternatives (which may hold wildcards and braces of their own). A `[` or `{` that does
 * not open a well-formed set or alternation (`a[b`, `{a}`, `x{`) is a literal character, as is
 * everything else. Case-sensitive. As in shells, a name starting with `.` is matched only by a pattern
 * that spells the dot: `*`, `?` and a negated set never match a leading `.`.
 */

type Test = (cp: number, first: boolean) => boolean;
type Node = { kind: "char"; test: Test } | { kind: "star" } | { kind: "alt"; options: Node[][] };
type Instruction =
  | { op: "char"; test: Test }
  | { op: "star" }
  | { op: "split"; next: number[] }
  | { op: "jmp"; to: number }
  | { op: "match" };

const DOT = 0x2e;

const POSIX: Record<string, (c: string) => boolean> = {
  alnum: (c) => /^[A-Za-z0-9]$/.test(c),
  alpha: (c) => /^[A-Za-z]$/.test(c),
  ascii: (c) => /^[\x00-\x7f]$/.test(c),
  blank: (c) => c === " " || c === "\t",
  cntrl: (c) => /^[\x00-\x1f\x7f]$/.test(c),
  digit: (c) => /^[0-9]$/.test(c),
  graph: (c) => /^[\x21-\x7e]$/.test(c),
  lower: (c) => /^[a-z]$/.test(c),
  print: (c) => /^[\x20-\x7e]$/.test(c),
  punct: (c) => /^[!-/:-@[-`{-~]$/.test(c),
  space: (c) => /^[ \t\r\n\v\f]$/.test(c),
  upper: (c) => /^[A-Z]$/.test(c),
  word: (c) => /^[A-Za-z0-9_]$/.test(c),
  xdigit: (c) => /^[0-9A-Fa-f]$/.test(c),
};

/** A set `[...]` starting at `start`: its test and the index after its `]`, or undefined when it is not one. */
function parseSet(p: readonly string[], start: number): { test: Test; end: number } | undefined {
  let i = start + 1;
  const negated = p[i] === "!" || p[i] === "^";
  if (negated) i++;
  const members: ((c: string) => boolean)[] = [];
  let firstMember = true;
  while (i < p.length) {
    const c = p[i] as string;
    if (c === "]" && !firstMember) {
      const test: Test = (cp, first) => {
        const ch = String.fromCodePoint(cp);
        const listed = members.some((m) => m(ch));
        return negated ? !listed && !(first && cp === DOT) : listed;
      };
      return { test, end: i + 1 };
    }
    firstMember = false;
    if (c === "[" && p[i + 1] === ":") {
      const close = p.indexOf(":", i + 2);
      const name = close > 0 && p[close + 1] === "]" ? p.slice(i + 2, close).join("") : undefined;
      const posix = name === undefined ? undefined : POSIX[name];
      if (posix !== undefined) {
        members.push(posix);
        i = close + 2;
        continue;
      }
    }
    const high = p[i + 2];
    if (p[i + 1] === "-" && high !== undefined && high !== "]") {
      const lo = c.codePointAt(0) ?? 0;
      const hi = high.codePointAt(0) ?? 0;
      members.push((ch) => (ch.codePointAt(0) ?? -1) >= lo && (ch.codePointAt(0) ?? -1) <= hi);
      i += 3;
      continue;
    }
    members.push((ch) => ch === c);
    i++;
  }
  return undefined;
}

/** The alternatives of a `{...}` starting at `start` and the index after its `}`; undefined when it is not one. */
function splitBraces(p: readonly string[], start: number): { options: [number, number][]; end: number } | undefined {
  const options: [number, number][] = [];
  let depth = 0;
  let from = start + 1;
  for (let i = start + 1; i < p.length; i++) {
    const c = p[i];
    if (c === "[") {
      const set = parseSet(p, i);
      if (set !== undefined) i = set.end - 1;
    } else if (c === "{") depth++;
    else if (c === "}" && depth > 0) depth--;
    else if (c === "," && depth === 0) {
      options.push([from, i]);
      from = i + 1;
    } else if (c === "}") {
      options.push([from, i]);
      // `{a}` (no comma) is no alternation: literal braces, as in shells.
      return options.length > 1 ? { options, end: i + 1 } : undefined;
    }
  }
  return undefined;
}

function parse(p: readonly string[], start: number, end: number): Node[] {
  const nodes: Node[] = [];
  for (let i = start; i < end;) {
    const c = p[i] as string;
    if (c === "*") {
      // `**` is `*`: a name has no path segments for it to cross.
      if (nodes.at(-1)?.kind !== "star") nodes.push({ kind: "star" });
      i++;
      continue;
    }
    if (c === "?") {
      nodes.push({ kind: "char", test: (cp, first) => !(first && cp === DOT) });
      i++;
      continue;
    }
    const set = c === "[" ? parseSet(p, i) : undefined;
    if (set !== undefined) {
      nodes.push({ kind: "char", test: set.test });
      i = set.end;
      continue;
    }
    const braces = c === "{" ? splitBraces(p, i) : undefined;
    if (braces !== undefined && braces.end <= end) {
      nodes.push({ kind: "alt", options: braces.options.map(([from, to]) => parse(p, from, to)) });
      i = braces.end;
      continue;
    }
    const literal = c.codePointAt(0);
    nodes.push({ kind: "char", test: (cp) => cp === literal });
    i++;
  }
  return nodes;
}

function compile(nodes: Node[], program: Instruction[]): void {
  for (const node of nodes) {
    if (node.kind === "char") program.push({ op: "char", test: node.test });
    else if (node.kind === "star") program.push({ op: "star" });
    else {
      const split: Instruction = { op: "split", next: [] };
      program.push(split);
      const jumps: { op: "jmp"; to: number }[] = [];
      for (const option of node.options) {
        split.next.push(program.length);
        compile(option, program);
        const jump = { op: "jmp" as const, to: -1 };
        program.push(jump);
        jumps.push(jump);
      }
      for (const jump of jumps) jump.to = program.length;
    }
  }
}

/** Counts the matcher's work (states visited), for tests that show it stays linear. */
export interface GlobMeter {
  steps: number;
}

/** Compiles a glob into a matcher of whole names (see the grammar above). */
export function compileGlob(pattern: string): (name: string, meter?: GlobMeter) => boolean {
  const p = Array.from(pattern);
  const program: Instruction[] = [];
  compile(parse(p, 0, p.length), program);
  program.push({ op: "match" });
  const size = program.length;
  const marks = new Uint32Array(size);

  return (name, meter) => {
    let generation = 0;
    const add = (list: number[], pc: number): void => {
      if (meter !== undefined) meter.steps++;
      if (marks[pc] === generation) return;
      marks[pc] = generation;
      const ins = program[pc] as Instruction;
      if (ins.op === "split") for (const target of ins.next) add(list, target);
      else if (ins.op === "jmp") add(list, ins.to);
      else {
        list.push(pc);
        if (ins.op === "star") add(list, pc + 1);
      }
    };
    marks.fill(0);
    generation = 1;
    let current: number[] = [];
    add(current, 0);
    let first = true;
    for (const ch of name) {
      const cp = ch.codePointAt(0) ?? 0;
      generation++;
      const next: number[] = [];
      for (const pc of current) {
        const ins = program[pc] as Instruction;
        if (ins.op === "char" && ins.test(cp, first)) add(next, pc + 1);
        else if (ins.op === "star" && !(first && cp === DOT)) add(next, pc);
      }
      if (next.length === 0) return false;
      current = next;
      first = false;
    }
    return current.some((pc) => program[pc]?.op === "match");
  };
}
