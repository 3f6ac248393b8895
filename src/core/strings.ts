// A cut of a long string (slice, substring, regex match) may share the whole string's memory: V8 keeps
// cuts of 13 or more characters as views. Whatever outlives a request (journal, caches) keeps a copy.

/** A standalone copy of `text`, so a cut never keeps the string it was cut from alive. */
export function detached(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string);
}
