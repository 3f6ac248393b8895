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

/** The journal's and the header's words for one. */
export const unrecognizedWarning = (name: string) => `unrecognized request argument "${name}"`;
