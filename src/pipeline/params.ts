// Top-level request parameters a format does not know (a newer SDK's): gateways pass them on, so by
// default they are accepted, left out of what the handler sees, and named in the journal entry and in
// `x-mock-warning`; with strictParams they get the vendor's own 400. The pipeline marks a request's
// body as lenient here, and the formats' field checker (formats/fields.ts) asks when it meets one.

/** Lenient bodies, each with where its unknown names are reported. Keyed by the body the handler gets. */
const lenient = new WeakMap<object, (names: string[]) => void>();

/** Accepts unknown top-level names in `body` (the handler's own copy) and reports them to `warn`. */
export function acceptUnknownParams(body: object, warn: (names: string[]) => void): void {
  lenient.set(body, warn);
}

/** `derived` (a handler's converted copy of a lenient body) is lenient alike, reporting to the same place. */
export function lenientAlike(body: object, derived: object): void {
  const warn = lenient.get(body);
  if (warn) lenient.set(derived, warn);
}

/** Where a body's unknown names are reported, or undefined when they are refused (strictParams, or not a request body). */
export function unknownParamsReport(body: object): ((names: string[]) => void) | undefined {
  return lenient.get(body);
}

/** Longest part of an unknown name quoted: a name is the client's text, and it goes into a header. */
const QUOTED_NAME_CHARS = 100;

/**
 * A name as the journal's and the header's words quote it (here, an unknown parameter's; decide.ts, a tool's). The name is quoted as JSON with everything outside
 * printable ASCII escaped, since a header value may not carry control characters (a fuzzed name held NUL).
 */
export const quotedName = (name: string) => {
  const cut = name.length > QUOTED_NAME_CHARS ? `${name.slice(0, QUOTED_NAME_CHARS)}…` : name;
  return JSON.stringify(cut).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
};
const unrecognizedWarning = (name: string) => `unrecognized request argument ${quotedName(name)}`;

/** Unknown names named one by one, at most: a body may hold 10 000 keys, and the header must stay small. */
const WARNED_NAMES = 10;

/** The journal's warnings (and the header's words) for a request's unknown names: the first WARNED_NAMES, then how many more. */
export function warningsFor(names: readonly string[]): string[] {
  const shown = names.slice(0, WARNED_NAMES).map(unrecognizedWarning);
  return names.length > WARNED_NAMES ? [...shown, `and ${names.length - WARNED_NAMES} more unrecognized request arguments`] : shown;
}
