// Text in a custom tool's grammar: a regular expression (through the pattern generator) or a Lark
// grammar (rules and terminals of literals, /regex/ terminals, groups, [optional], ?, *, +, and
// common.* imports), drawn from the start rule. Deep recursion takes each rule's first alternative
// that does not recurse, so any grammar with a finite sentence ends. The work is counted.
import { GatewayError } from '../errors.ts';
import { Rng } from '../seed.ts';
import type { Budget } from './budget.ts';
import { parsePattern, stringForPattern } from './pattern.ts';

type Item =
  | { kind: 'literal'; text: string }
  | { kind: 'regex'; source: string }
  | { kind: 'ref'; name: string }
  | { kind: 'group'; alternatives: Item[][] }
  | { kind: 'repeat'; item: Item; min: number; max: number };

/** Lark's `common` terminals, as patterns. */
const COMMON: Record<string, string> = {
  DIGIT: '[0-9]',
  HEXDIGIT: '[0-9a-f]',
  INT: '[0-9]{1,4}',
  SIGNED_INT: '-?[0-9]{1,4}',
  DECIMAL: '[0-9]{1,3}\\.[0-9]{1,2}',
  NUMBER: '[0-9]{1,4}',
  SIGNED_NUMBER: '-?[0-9]{1,4}',
  FLOAT: '[0-9]{1,3}\\.[0-9]{1,2}',
  LETTER: '[a-z]',
  LCASE_LETTER: '[a-z]',
  UCASE_LETTER: '[A-Z]',
  WORD: '[a-z]{3,8}',
  CNAME: '[a-z_][a-z0-9_]{2,8}',
  WS: ' ',
  WS_INLINE: ' ',
  NEWLINE: '\n',
  CR: '\r',
  LF: '\n',
  ESCAPED_STRING: '"[a-z ]{3,12}"',
};

/** How deep rules may nest before each takes its shortest way out. */
const DEEP = 12;

function refuse(why: string): GatewayError {
  return new GatewayError('invalid_request', `model-gateway-mock could not produce text for the custom tool's Lark grammar: ${why}.`);
}

/** A Lark grammar's rules by name: each a list of alternatives, each a sequence of items. */
function parseLark(definition: string, budget: Budget): Map<string, Item[][]> {
  const rules = new Map<string, Item[][]>();
  // A rule's alternatives may continue on lines that start with `|`.
  const lines = definition.split(/\r?\n/).reduce<string[]>((out, line) => {
    const t = line.replace(/\/\/.*$/, '').trim();
    if (!t) return out;
    if (t.startsWith('|') && out.length) out[out.length - 1] += ` ${t}`;
    else out.push(t);
    return out;
  }, []);
  for (const line of lines) {
    budget.visit();
    if (line.startsWith('%import')) {
      for (const name of line
        .replace(/^%import\s+common\.?/, '')
        .replace(/[()]/g, ' ')
        .split(/[\s,.]+/))
        if (COMMON[name]) rules.set(name, [[{ kind: 'regex', source: COMMON[name] }]]);
      continue;
    }
    if (line.startsWith('%')) continue;
    const m = /^([?!]?)([A-Za-z_][A-Za-z0-9_]*)(?:\.\d+)?\s*:\s*(.*)$/.exec(line);
    if (!m) throw refuse(`cannot read the line "${line.slice(0, 80)}"`);
    // An alternative's alias (`-> name`) names its tree node: nothing of the text.
    rules.set(m[2], new Reader(m[3].replace(/->\s*[A-Za-z_]\w*/g, ''), budget).alternatives());
  }
  return rules;
}

class Reader {
  private at = 0;
  private readonly text: string;
  private readonly budget: Budget;

  constructor(text: string, budget: Budget) {
    this.text = text;
    this.budget = budget;
  }

  alternatives(): Item[][] {
    const out: Item[][] = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      out.push(this.sequence());
    }
    return out;
  }

  private peek(): string {
    while (this.text[this.at] === ' ' || this.text[this.at] === '\t') this.at++;
    return this.text[this.at] ?? '';
  }

  private sequence(): Item[] {
    const items: Item[] = [];
    for (let c = this.peek(); c && c !== '|' && c !== ')' && c !== ']'; c = this.peek()) {
      this.budget.visit();
      let item = this.atom();
      const q = this.text[this.at];
      if (q === '?') item = { kind: 'repeat', item, min: 0, max: 1 };
      else if (q === '*') item = { kind: 'repeat', item, min: 0, max: 3 };
      else if (q === '+') item = { kind: 'repeat', item, min: 1, max: 3 };
      if (q === '?' || q === '*' || q === '+') this.at++;
      items.push(item);
    }
    return items;
  }

  private atom(): Item {
    const c = this.peek();
    if (c === '"' || c === "'") {
      const end = this.closing(c);
      const text = JSON.parse(
        `"${this.text
          .slice(this.at + 1, end)
          .replace(/\\'/g, "'")
          .replace(/"/g, '\\"')}"`,
      ) as string;
      this.at = end + 1;
      if (this.text[this.at] === 'i') this.at++;
      return { kind: 'literal', text };
    }
    if (c === '/') {
      const end = this.closing('/');
      const source = this.text.slice(this.at + 1, end);
      this.at = end + 1;
      while (/[imsxlu]/.test(this.text[this.at] ?? '')) this.at++;
      return { kind: 'regex', source };
    }
    if (c === '(' || c === '[') {
      this.at++;
      const alternatives = this.alternatives();
      const close = c === '(' ? ')' : ']';
      if (this.peek() !== close) throw refuse(`a "${c}" is not closed`);
      this.at++;
      const group: Item = { kind: 'group', alternatives };
      return c === '[' ? { kind: 'repeat', item: group, min: 0, max: 1 } : group;
    }
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.text.slice(this.at));
    if (!m) throw refuse(`unexpected "${c}"`);
    this.at += m[0].length;
    return { kind: 'ref', name: m[0].replace(/^common\./, '') };
  }

  /** The index of the quote closing the one at `at`, past escapes. */
  private closing(quote: string): number {
    for (let i = this.at + 1; i < this.text.length; i++) {
      if (this.text[i] === '\\') i++;
      else if (this.text[i] === quote) return i;
    }
    throw refuse(`a ${quote} is not closed`);
  }
}

/** Whether every way through `items` reaches `name` again (a first choice to avoid when deep). */
function recurses(items: Item[], name: string, rules: Map<string, Item[][]>, seen = new Set<string>()): boolean {
  return items.some((item) => {
    if (item.kind === 'ref') {
      if (item.name === name) return true;
      if (seen.has(item.name)) return false;
      seen.add(item.name);
      const alts = rules.get(item.name);
      return alts?.every((alt) => recurses(alt, name, rules, seen)) ?? false;
    }
    if (item.kind === 'group') return item.alternatives.every((alt) => recurses(alt, name, rules, seen));
    return item.kind === 'repeat' && item.min > 0 && recurses([item.item], name, rules, seen);
  });
}

/** A sentence of the Lark grammar `definition`, from its `start` rule. */
function larkText(definition: string, rng: Rng, budget: Budget): string {
  const rules = parseLark(definition, budget);
  if (!rules.has('start')) throw refuse('it has no start rule');
  let out = '';
  const emit = (items: Item[], rule: string, depth: number): void => {
    budget.nest(depth, 'grammar rules');
    for (const item of items) {
      budget.visit();
      if (item.kind === 'literal') out += item.text;
      else if (item.kind === 'regex') out += stringForPattern(parsePattern(item.source, budget), rng, budget);
      else if (item.kind === 'repeat') {
        const n = depth > DEEP ? item.min : rng.int(item.min, item.max);
        for (let i = 0; i < n; i++) emit([item.item], rule, depth + 1);
      } else if (item.kind === 'group') emit(choose(item.alternatives, rule, depth), rule, depth + 1);
      else {
        const alts = rules.get(item.name);
        if (!alts) throw refuse(`the rule "${item.name}" is not defined`);
        emit(choose(alts, item.name, depth), item.name, depth + 1);
      }
    }
  };
  const choose = (alts: Item[][], rule: string, depth: number): Item[] =>
    depth > DEEP ? (alts.find((a) => !recurses(a, rule, rules)) ?? alts[0]) : rng.pick(alts);
  emit(choose(rules.get('start')!, 'start', 0), 'start', 0);
  budget.produce(out.length);
  return out;
}

/** Text in `grammar` (a regex or a Lark grammar), the same for the same key. */
export function grammarText(grammar: { syntax: 'lark' | 'regex'; definition: string }, key: number, budget: Budget): string {
  const rng = new Rng(key);
  if (grammar.syntax === 'regex') return stringForPattern(parsePattern(grammar.definition, budget), rng, budget);
  return larkText(grammar.definition, rng, budget);
}
