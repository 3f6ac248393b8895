// Azure OpenAI's content filter results, as its replies carry them: `prompt_filter_results` for the
// prompt, `content_filter_results` on each choice (and, streamed, on each chunk's choices, after a
// first chunk with only the prompt's results and no choices). The emulator's filter passes everything
// as `safe`, unless the reply was blocked (a CONTENT_FILTER fault or a `blocked` fixture reply: its
// finish reason is `content_filter`) or the prompt was (then the 400 in errors.ts carries them).
import type { JsonObject, Outbound } from '../../pipeline/exchange.ts';
import { touchPayloads } from '../../pipeline/touch.ts';

const safe = () => ({ filtered: false, severity: 'safe' });
const undetected = () => ({ filtered: false, detected: false });

/** The category a blocked prompt or reply is filtered for: one, always the same, so bytes repeat. */
const FILTERED = { filtered: true, severity: 'high' };

/** A prompt's filter results: every category safe, no jailbreak; with `blocked`, filtered for violence. */
export function promptFilterResults(blocked = false) {
  return { hate: safe(), jailbreak: undetected(), self_harm: safe(), sexual: safe(), violence: blocked ? FILTERED : safe() };
}

/** A completion's filter results; with `blocked` (finish reason `content_filter`), filtered for violence. */
function choiceFilterResults(blocked: boolean) {
  return {
    hate: safe(),
    protected_material_code: undetected(),
    protected_material_text: undetected(),
    self_harm: safe(),
    sexual: safe(),
    violence: blocked ? FILTERED : safe(),
  };
}

/** Each prompt's results (a legacy completion may have several prompts; one is reported here). */
const promptResults = () => [{ prompt_index: 0, content_filter_results: promptFilterResults() }];

const choicesOf = (payload: JsonObject) => (Array.isArray(payload.choices) ? (payload.choices as JsonObject[]) : []);

/** A whole reply: the prompt's results, and each choice's (kept where the body already has them: a recorded Azure reply). */
function touchReply(reply: JsonObject): void {
  reply.prompt_filter_results ??= promptResults();
  for (const choice of choicesOf(reply)) choice.content_filter_results ??= choiceFilterResults(choice.finish_reason === 'content_filter');
}

/** One chunk: text is filtered (and reported) as it streams; a role, tool call or finish chunk reports `{}`. */
function touchChunk(chunk: JsonObject): void {
  for (const choice of choicesOf(chunk)) {
    const delta = (choice.delta ?? {}) as JsonObject;
    const text = typeof delta.content === 'string' ? delta.content : typeof choice.text === 'string' ? choice.text : '';
    const blocked = choice.finish_reason === 'content_filter';
    choice.content_filter_results ??= text || blocked ? choiceFilterResults(blocked) : {};
  }
}

const CHUNK_OBJECTS = new Set(['chat.completion.chunk', 'text_completion']);

/**
 * A chat or legacy completion answer with Azure's filter results: on a reply, and on a stream's chunks
 * after a first chunk with the prompt's results alone (`id` '', `created` 0, no choices), as Azure sends it.
 */
export function withFilterResults(out: Outbound): Outbound {
  if (typeof out.body === 'string') return touchPayloads(out, (payload) => void (payload.choices && touchReply(payload)));
  return touchPayloads(out, (chunk, at) => {
    // Another payload (an in-stream error, the usage chunk's empty choices) is sent as it is.
    if (!CHUNK_OBJECTS.has(String(chunk.object)) || choicesOf(chunk).length === 0) return undefined;
    touchChunk(chunk);
    if (at > 0) return undefined;
    const first = { choices: [], created: 0, id: '', model: '', object: '', prompt_filter_results: promptResults() };
    return [first, chunk];
  });
}
