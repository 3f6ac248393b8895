// A counted ceiling on the work of synthesizing one value from a client's schema. Estimating a
// schema's cost up front fails on shapes nobody foresaw ($refs fanning out through allOf, nested
// quantifiers in a pattern), so the generators count as they go and stop at a fixed amount of work,
// whatever the shape.
import { GatewayError } from '../errors.ts';

/**
 * Schema nodes one request's values may visit: every subschema, $ref followed, combinator branch,
 * property considered, array element, pattern part and string drawn.
 */
export const MAX_SCHEMA_NODES = 50_000;
/**
 * Strings one request draws from faker (5–15 µs each, against about 0.5 µs a node): past this, a
 * hinted string repeats one drawn earlier for the same hint instead of drawing a new one.
 */
const MAX_FAKER_DRAWS = 2_000;
/** Earlier draws kept per hint for that reuse. */
const POOL = 256;
/** Characters one request's values may produce (strings, keys, pattern output, const and enum values). */
export const MAX_SCHEMA_CHARS = 1_000_000;
/** How deep a value may nest (objects and arrays), a pattern's groups, and a chain of $refs and combinators without a value between. */
export const MAX_SCHEMA_DEPTH = 64;

export class Budget {
  nodes = 0;
  chars = 0;

  /** `what` names the schema being worked on in errors, e.g. `the parameters of tool "get_weather"`. */
  what: string;

  constructor(what = 'the schema') {
    this.what = what;
  }

  /** Counts `n` visited nodes; throws once past the ceiling. */
  visit(n = 1): void {
    this.nodes += n;
    if (this.nodes > MAX_SCHEMA_NODES) {
      throw this.fail(
        `after visiting ${MAX_SCHEMA_NODES} schema nodes (its $refs, combinators, array sizes or pattern repetitions fan out); simplify the schema`,
      );
    }
  }

  private draws = 0;
  private readonly pools = new Map<string, string[]>();

  /**
   * A string from `make` (a faker draw) for hint `kind`, counted; past MAX_FAKER_DRAWS, one of the
   * earlier draws for that hint, picked by `pick`.
   */
  draw(kind: string, make: () => string, pick: <T>(items: readonly T[]) => T): string {
    this.visit();
    let pool = this.pools.get(kind);
    if (!pool) this.pools.set(kind, (pool = []));
    if (this.draws >= MAX_FAKER_DRAWS && pool.length) return pick(pool);
    this.draws++;
    const text = make();
    if (pool.length < POOL) pool.push(text);
    return text;
  }

  /** Counts `n` produced characters; throws once past the ceiling. */
  produce(n: number): void {
    this.chars += n;
    if (this.chars > MAX_SCHEMA_CHARS) {
      throw this.fail(
        `after producing ${MAX_SCHEMA_CHARS} characters (its lengths, array sizes or pattern repetitions multiply); lower them`,
      );
    }
  }

  /** Throws when `depth` passes the nesting ceiling. */
  nest(depth: number, of: string): void {
    if (depth > MAX_SCHEMA_DEPTH)
      throw this.fail(`at ${MAX_SCHEMA_DEPTH} levels of ${of} (a $ref that always recurses?); make the recursion optional or shallower`);
  }

  fail(why: string): GatewayError {
    return new GatewayError('invalid_request', `model-gateway-mock stopped generating a value for ${this.what} ${why}.`);
  }
}
