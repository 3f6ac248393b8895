// The wire formats' names: the one list that the canonical request, the journal, fixtures, the format
// objects and record mode are typed by.
// A leaf module (no imports), so that anything may name a format without pulling in a format's code.
const FORMAT_NAMES = ['openai', 'anthropic', 'gemini', 'bedrock'] as const;

export type FormatName = (typeof FORMAT_NAMES)[number];
