// Values a conversation gives for a tool call's arguments: asked for the weather in Paris, `get_weather`
// gets `{"city": "Paris"}`. The last user message is read once for what a parameter may take (enum
// members it names, emails, ISO dates, numbers, quoted strings, a capitalized place after "in", "at",
// "to", "from" or "for"); the JSON walker (json.ts) asks for each property in schema order and takes
// the first value that fits the property's kind and limits, else synthesizes one as before. Each value
// is used once, in the order the prompt gives them, so the same prompt gives the same arguments.

/** Characters of the prompt read: its end, where the request usually is. */
const MAX_PROMPT_CHARS = 4000;

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
const DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
const NUMBER = /(?<![\w.-])-?\d+(?:\.\d+)?(?![\w.]*\w)/g;
const QUOTED = /"([^"\n]{1,200})"|'([^'\n]{1,200})'|“([^”\n]{1,200})”/g;
const PLACE = /\b(?:in|at|to|from|for|near)\s+((?:[A-Z][\p{L}'-]+)(?:\s+[A-Z][\p{L}'-]+){0,2})/gu;

/** Property names a place fills. */
const PLACE_NAMES = /city|town|location|place|destination|origin|country|region|where/i;
const EMAIL_NAMES = /e_?mail/i;
const DATE_NAMES = /date|day|when/i;

type Schema = Record<string, unknown>;

export class PromptValues {
  private readonly text: string;
  private readonly emails: string[];
  private readonly dates: string[];
  private readonly numbers: number[];
  private readonly quoted: string[];
  private readonly places: string[];

  constructor(prompt: string) {
    this.text = prompt.slice(-MAX_PROMPT_CHARS);
    const all = (re: RegExp) => [...this.text.matchAll(re)];
    this.emails = all(EMAIL).map((m) => m[0]);
    this.dates = all(DATE).map((m) => m[0]);
    const claimed = new Set([...this.dates, ...this.emails].join(' ').match(/\d+/g) ?? []);
    this.numbers = all(NUMBER)
      .map((m) => m[0])
      .filter((n) => !claimed.has(n))
      .map(Number);
    this.quoted = all(QUOTED).map((m) => m[1] ?? m[2] ?? m[3]);
    // Words a sentence starts with are not places ("For", "In" are taken by the pattern itself).
    this.places = all(PLACE).map((m) => m[1]);
  }

  /** Whether the prompt gave anything at all (most prompts give nothing: the walker then asks nothing). */
  get empty(): boolean {
    return !this.emails.length && !this.dates.length && !this.numbers.length && !this.quoted.length && !this.places.length;
  }

  /**
   * The value the prompt gives property `name` of schema `s` (already resolved, of type `type`), or
   * undefined. A string must fit the schema's length limits; one with a pattern is left alone.
   */
  take(name: string, s: Schema, type: string): unknown {
    if (Array.isArray(s.enum)) return this.member(s.enum);
    const min = typeof s.minLength === 'number' ? s.minLength : 0;
    const max = typeof s.maxLength === 'number' ? s.maxLength : Infinity;
    const fits = (text: string) => text.length >= min && [...text].length <= max;
    if (type === 'integer' || type === 'number') return this.number(s, type === 'integer');
    if (type !== 'string' || s.pattern !== undefined) return undefined;
    const format = typeof s.format === 'string' ? s.format : '';
    const pick = (list: string[]) => {
      const i = list.findIndex(fits);
      return i < 0 ? undefined : list.splice(i, 1)[0];
    };
    if (format === 'email' || EMAIL_NAMES.test(name)) return pick(this.emails);
    if (format === 'date' || (!format && DATE_NAMES.test(name))) return pick(this.dates);
    if (format) return undefined;
    if (PLACE_NAMES.test(name)) return pick(this.places) ?? pick(this.quoted);
    return pick(this.quoted);
  }

  /** The enum member the prompt names (as a whole word, any case), the first in the prompt. */
  private member(values: unknown[]): unknown {
    const lower = this.text.toLowerCase();
    let best: unknown;
    let at = Infinity;
    for (const v of values) {
      if (typeof v !== 'string' || !v.trim()) continue;
      const re = new RegExp(`(?<![\\p{L}\\d])${v.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\d])`, 'u');
      const i = lower.search(re);
      if (i >= 0 && i < at) [best, at] = [v, i];
    }
    return best;
  }

  private number(s: Schema, integer: boolean): number | undefined {
    const lo = typeof s.minimum === 'number' ? s.minimum : -Infinity;
    const hi = typeof s.maximum === 'number' ? s.maximum : Infinity;
    const i = this.numbers.findIndex(
      (n) =>
        n >= lo &&
        n <= hi &&
        (!integer || Number.isInteger(n)) &&
        (typeof s.exclusiveMinimum !== 'number' || n > s.exclusiveMinimum) &&
        (typeof s.exclusiveMaximum !== 'number' || n < s.exclusiveMaximum) &&
        (typeof s.multipleOf !== 'number' || Number.isInteger(n / s.multipleOf)),
    );
    return i < 0 ? undefined : this.numbers.splice(i, 1)[0];
  }
}
