// Strings that match a JSON Schema `pattern` (ECMAScript regex syntax): literals, escapes, classes,
// groups, alternation, quantifiers, anchors and back-references. Lookarounds and word boundaries
// produce nothing (so a value may miss such a pattern). Every part evaluated and every character
// produced is counted against the value's budget, so nested quantifiers stop at the ceiling instead
// of building gigabytes.
import type { Rng } from '../seed.ts';
import type { Budget } from './budget.ts';

type Ranges = [number, number][];
/** A class item: code points in `ranges`, or (negated) outside them. */
type Item = { ranges: Ranges; negated: boolean };
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'class'; items: Item[]; negated: boolean }
  | { kind: 'group'; alternatives: Node[][]; capture?: number }
  | { kind: 'repeat'; node: Node; min: number; max: number }
  | { kind: 'backref'; ref: number | string }
  | { kind: 'none' };

const DIGIT: Ranges = [[48, 57]];
const WORD: Ranges = [
  [48, 57],
  [65, 90],
  [95, 95],
  [97, 122],
];
const SPACE: Ranges = [
  [9, 13],
  [32, 32],
  [160, 160],
  [0x2028, 0x2029],
  [0xfeff, 0xfeff],
];
/** What `.` and negated classes draw from first: printable ASCII. */
const PRINTABLE: [number, number] = [33, 126];
/** Repetitions an unbounded quantifier (`*`, `+`, `{n,}`) adds at most; bounded ones add up to this beyond their minimum. */
const EXTRA = 3;

class Parser {
  private at = 0;
  captures = 0;
  readonly names = new Map<string, number>();

  private readonly source: string;
  private readonly budget: Budget;

  constructor(source: string, budget: Budget) {
    this.source = source;
    this.budget = budget;
  }

  parse(): Node {
    const node = this.alternatives(0);
    if (this.at < this.source.length) throw new SyntaxError(`unexpected "${this.source[this.at]}"`);
    return node;
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  private alternatives(depth: number, capture?: number): Node {
    this.budget.nest(depth, 'groups in a pattern');
    const alternatives: Node[][] = [this.sequence(depth)];
    while (this.peek() === '|') {
      this.at++;
      alternatives.push(this.sequence(depth));
    }
    return { kind: 'group', alternatives, capture };
  }

  private sequence(depth: number): Node[] {
    const nodes: Node[] = [];
    while (this.at < this.source.length && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom(depth);
      nodes.push(this.quantified(atom));
    }
    return nodes;
  }

  private quantified(node: Node): Node {
    const c = this.peek();
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at, this.at + 40));
      if (!m) return node; // a literal brace (legal without the u flag)
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.at += m[0].length - 1;
    } else return node;
    this.at++;
    if (this.peek() === '?') this.at++; // lazy: the same strings
    return { kind: 'repeat', node, min, max };
  }

  private atom(depth: number): Node {
    const c = this.source[this.at++];
    if (c === '(') {
      let capture: number | undefined;
      let discard = false;
      if (this.source.startsWith('?:', this.at)) this.at += 2;
      else if (/^\?<?[=!]/.test(this.source.slice(this.at, this.at + 3))) {
        this.at += this.source[this.at + 1] === '<' ? 3 : 2;
        discard = true;
      } else if (this.source.startsWith('?<', this.at)) {
        const end = this.source.indexOf('>', this.at);
        if (end < 0) throw new SyntaxError('unterminated group name');
        capture = ++this.captures;
        this.names.set(this.source.slice(this.at + 2, end), capture);
        this.at = end + 1;
      } else capture = ++this.captures;
      const group = this.alternatives(depth + 1, capture);
      if (this.source[this.at++] !== ')') throw new SyntaxError('unterminated group');
      return discard ? { kind: 'none' } : group;
    }
    if (c === '[') return this.charClass();
    if (c === '.')
      return {
        kind: 'class',
        items: [
          {
            ranges: [
              [10, 10],
              [13, 13],
              [0x2028, 0x2029],
            ],
            negated: true,
          },
        ],
        negated: false,
      };
    if (c === '^' || c === '$') return { kind: 'none' };
    if (c === '\\') return this.escape(false);
    return { kind: 'text', text: c };
  }

  private charClass(): Node {
    const negated = this.peek() === '^';
    if (negated) this.at++;
    const items: Item[] = [];
    const ranges: Ranges = [];
    while (this.at < this.source.length && this.peek() !== ']') {
      const low = this.classAtom();
      if (typeof low !== 'number') {
        items.push(low);
        continue;
      }
      if (this.peek() === '-' && this.source[this.at + 1] !== ']' && this.at + 1 < this.source.length) {
        this.at++;
        const high = this.classAtom();
        if (typeof high !== 'number') {
          // `[\w-.]` without the u flag: the dash is literal.
          ranges.push([low, low], [45, 45]);
          items.push(high);
        } else ranges.push([Math.min(low, high), Math.max(low, high)]);
      } else ranges.push([low, low]);
    }
    if (this.source[this.at++] !== ']') throw new SyntaxError('unterminated character class');
    if (ranges.length) items.push({ ranges, negated: false });
    return { kind: 'class', items, negated };
  }

  /** A code point, or a class escape (\d, \w…). */
  private classAtom(): number | Item {
    const c = this.source[this.at++];
    if (c !== '\\') return this.source.codePointAt(this.at - 1)! > 0xffff ? this.astral() : c.charCodeAt(0);
    const node = this.escape(true);
    if (node.kind === 'class') return node.items[0];
    if (node.kind === 'text') return node.text.codePointAt(0)!;
    return 8; // \b in a class is a backspace
  }

  private astral(): number {
    const code = this.source.codePointAt(this.at - 1)!;
    this.at++;
    return code;
  }

  private escape(inClass: boolean): Node {
    const c = this.source[this.at++];
    if (c === undefined) throw new SyntaxError('\\ at the end of the pattern');
    const set = (ranges: Ranges, negated: boolean): Node => ({ kind: 'class', items: [{ ranges, negated }], negated: false });
    switch (c) {
      case 'd':
        return set(DIGIT, false);
      case 'D':
        return set(DIGIT, true);
      case 'w':
        return set(WORD, false);
      case 'W':
        return set(WORD, true);
      case 's':
        return set(SPACE, false);
      case 'S':
        return set(SPACE, true);
      case 'p':
      case 'P': {
        // Unicode properties: letters stand in for any (a value may miss an exotic property).
        const end = this.source.indexOf('}', this.at);
        if (this.peek() === '{' && end > 0) this.at = end + 1;
        return set([[97, 122]], c === 'P');
      }
      case 'b':
      case 'B':
        return inClass ? { kind: 'text', text: '\b' } : { kind: 'none' };
      case 'n':
        return { kind: 'text', text: '\n' };
      case 'r':
        return { kind: 'text', text: '\r' };
      case 't':
        return { kind: 'text', text: '\t' };
      case 'f':
        return { kind: 'text', text: '\f' };
      case 'v':
        return { kind: 'text', text: '\v' };
      case '0':
        return { kind: 'text', text: '\0' };
      case 'c': {
        const letter = this.source[this.at++] ?? 'A';
        return { kind: 'text', text: String.fromCharCode(letter.charCodeAt(0) % 32) };
      }
      case 'x': {
        const hex = this.source.slice(this.at, this.at + 2);
        this.at += 2;
        return { kind: 'text', text: String.fromCharCode(parseInt(hex, 16) || 0) };
      }
      case 'u': {
        const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(this.source.slice(this.at, this.at + 8));
        if (braced) {
          this.at += braced[0].length;
          return { kind: 'text', text: String.fromCodePoint(Math.min(parseInt(braced[1], 16), 0x10ffff)) };
        }
        const hex = this.source.slice(this.at, this.at + 4);
        this.at += 4;
        return { kind: 'text', text: String.fromCharCode(parseInt(hex, 16) || 0) };
      }
      case 'k': {
        const m = /^<([^>]*)>/.exec(this.source.slice(this.at, this.at + 100));
        if (!m || inClass) return { kind: 'text', text: 'k' };
        this.at += m[0].length;
        return { kind: 'backref', ref: m[1] };
      }
      default:
        if (!inClass && /[1-9]/.test(c)) {
          let digits = c;
          while (/\d/.test(this.peek() ?? '')) digits += this.source[this.at++];
          return { kind: 'backref', ref: Number(digits) };
        }
        return { kind: 'text', text: c };
    }
  }
}

function inRanges(code: number, ranges: Ranges): boolean {
  return ranges.some(([low, high]) => code >= low && code <= high);
}

/** Generates strings for one parsed pattern. */
class Producer {
  private readonly groups = new Map<number, string>();
  private readonly out: string[] = [];

  private readonly rng: Rng;
  private readonly budget: Budget;
  private readonly names: Map<string, number>;

  constructor(rng: Rng, budget: Budget, names: Map<string, number>) {
    this.rng = rng;
    this.budget = budget;
    this.names = names;
  }

  run(node: Node): string {
    this.node(node);
    return this.out.join('');
  }

  private emit(text: string): void {
    this.budget.produce(text.length);
    this.out.push(text);
  }

  private node(node: Node): void {
    this.budget.visit();
    switch (node.kind) {
      case 'text':
        return this.emit(node.text);
      case 'class':
        return this.emit(String.fromCodePoint(this.pick(node)));
      case 'group': {
        const start = this.out.length;
        for (const n of this.rng.pick(node.alternatives)) this.node(n);
        if (node.capture !== undefined) this.groups.set(node.capture, this.out.slice(start).join(''));
        return;
      }
      case 'repeat': {
        const count = node.min + this.rng.int(0, Math.min(node.max - node.min, EXTRA));
        for (let i = 0; i < count; i++) this.node(node.node);
        return;
      }
      case 'backref': {
        const index = typeof node.ref === 'number' ? node.ref : this.names.get(node.ref);
        return this.emit((index !== undefined && this.groups.get(index)) || '');
      }
    }
  }

  /** A code point of the class, printable ASCII where the class allows. */
  private pick(node: Extract<Node, { kind: 'class' }>): number {
    const matches = (code: number) => node.items.some((item) => inRanges(code, item.ranges) !== item.negated) !== node.negated;
    if (!node.negated && node.items.length) {
      const item = this.rng.pick(node.items);
      if (!item.negated) {
        const [low, high] = this.rng.pick(item.ranges);
        // Prefer the printable part of a wide range.
        const a = Math.max(low, PRINTABLE[0]);
        const b = Math.min(high, PRINTABLE[1]);
        return a <= b ? this.rng.int(a, b) : this.rng.int(low, high);
      }
    }
    // A complement: try a few printable characters, then scan (a bounded number of code points).
    for (let i = 0; i < 8; i++) {
      const code = this.rng.int(PRINTABLE[0], PRINTABLE[1]);
      if (matches(code)) return code;
    }
    for (let code = 32; code < 0x3000; code++) if (matches(code)) return code;
    return 32;
  }
}

/** A parsed pattern, or why it cannot be generated. */
export function parsePattern(source: string, budget: Budget): { node: Node; names: Map<string, number> } {
  const parser = new Parser(source, budget);
  const node = parser.parse();
  return { node, names: parser.names };
}

/** A string that matches `source`, drawn from `rng`, within `budget`. */
export function stringForPattern(parsed: ReturnType<typeof parsePattern>, rng: Rng, budget: Budget): string {
  return new Producer(rng, budget, parsed.names).run(parsed.node);
}
