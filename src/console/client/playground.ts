// The playground's script: builds the request the chosen model's API expects, sends it with fetch
// like any client, and shows the reply as it arrives (text streamed, audio played, images shown).
import { $, announce, el, errorMessage, pageData, readEvents, readEventStream, wireCopyButtons } from './common.ts';
import { readGemini, readStreamEvent, type StreamSink, type TextApi, type Usage } from './stream.ts';

interface Model {
  id: string;
  vendor: string;
  kind: 'chat' | 'completion' | 'embedding' | 'rerank' | 'speech' | 'image';
  dimensions?: number;
  /** Its id on OpenRouter (`openai/gpt-4o-mini`). */
  routerId: string;
  /** Image models: the sizes (OpenAI) or aspect ratios (Gemini) they draw, the default, and the most images a request may ask. */
  sizes?: string[];
  defaultSize?: string;
  maxImages?: number;
}
interface Data {
  token: string;
  tokens: string[];
  models: Model[];
}

/** One way to call a model: its label and how to build the request. */
type Format =
  | 'chat'
  | 'responses'
  | 'messages'
  | 'gemini'
  | 'completions'
  | 'embeddings'
  | 'rerank'
  | 'speech'
  | 'gemini-speech'
  | 'images'
  | 'gemini-image'
  | 'converse';
const FORMAT_LABELS: Record<Format, string> = {
  chat: 'Chat completions',
  responses: 'Responses',
  messages: 'Messages',
  gemini: 'Generate content',
  completions: 'Completions',
  embeddings: 'Embeddings',
  rerank: 'Rerank',
  speech: 'Speech',
  'gemini-speech': 'Generate content (audio)',
  images: 'Image generation',
  'gemini-image': 'Generate content (image)',
  converse: 'Converse',
};

/** The way a request reaches the gateway: the vendor's own paths, or a cloud's or a router's (a dialect). */
type Through = 'direct' | 'azure' | 'openrouter' | 'vertex' | 'bedrock';
const THROUGH: readonly Through[] = ['direct', 'azure', 'openrouter', 'vertex', 'bedrock'];
/** The formats each dialect serves (the rest of a model's formats are not offered through it). */
const AZURE_FORMATS: Format[] = ['chat', 'responses', 'completions', 'embeddings', 'speech', 'images'];
const OPENROUTER_FORMATS: Format[] = ['chat', 'responses', 'completions', 'embeddings'];
/** Any project, location and api-version are taken; these are what the clouds' docs use. */
const VERTEX_GOOGLE = '/v1beta1/projects/my-project/locations/us-central1/publishers/google/models';
const VERTEX_ANTHROPIC = '/v1/projects/my-project/locations/us-east5/publishers/anthropic/models';
const AZURE_API_VERSION = '2024-10-21';
/** The formats a model can be called in through `through`, the most natural first; none where that way does not serve the model. */
function formatsThrough(model: Model, through: Through): Format[] {
  const all = formatsFor(model);
  switch (through) {
    case 'direct':
      return all;
    case 'azure':
      // Azure OpenAI deploys OpenAI's models.
      return model.vendor === 'openai' ? all.filter((f) => AZURE_FORMATS.includes(f)) : [];
    case 'openrouter':
      return all.filter((f) => OPENROUTER_FORMATS.includes(f));
    case 'vertex':
      // Vertex serves a model under its vendor's publisher: Gemini's methods for Google's, rawPredict for Claude.
      if (model.vendor === 'google') return all.filter((f) => f.startsWith('gemini'));
      return model.vendor === 'anthropic' ? all.filter((f) => f === 'messages') : [];
    case 'bedrock':
      return model.kind === 'chat' ? ['converse'] : [];
  }
}

const OPENAI_VOICES = ['alloy', 'ash', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer'];
const GEMINI_VOICES = ['Kore', 'Puck', 'Charon', 'Fenrir', 'Aoede', 'Leda', 'Orus', 'Zephyr'];

/** The formats a model can be called in, the most natural first. */
function formatsFor(model: Model): Format[] {
  const google = model.vendor === 'google';
  switch (model.kind) {
    case 'chat': {
      const all: Format[] = ['chat', 'responses', 'messages', 'gemini'];
      const first: Format = model.vendor === 'anthropic' ? 'messages' : google ? 'gemini' : 'chat';
      return [first, ...all.filter((f) => f !== first)];
    }
    case 'completion':
      return ['completions'];
    case 'embedding':
      return ['embeddings'];
    case 'rerank':
      return ['rerank'];
    case 'speech':
      return [google ? 'gemini-speech' : 'speech'];
    case 'image':
      // Gemini's image models answer generate-content, asked for image output; they can also just talk.
      return google ? ['gemini-image', 'gemini'] : ['images'];
  }
}

const data = pageData<Data>();
const form = $<HTMLFormElement>('#form');
const field = <T extends HTMLElement>(id: string) => $<T>(`#${id}`);
const tokenInput = field<HTMLInputElement>('token');
const modelSelect = field<HTMLSelectElement>('model');
const formatSelect = field<HTMLSelectElement>('format');
const throughSelect = field<HTMLSelectElement>('through');
const message = field<HTMLTextAreaElement>('message');
const reply = field('reply');
const media = field('media');
const usage = field('usage');
const send = field<HTMLButtonElement>('send');
const stop = field<HTMLButtonElement>('stop');
const streamBox = field<HTMLInputElement>('stream');

const current = () => data.models.find((m) => m.id === modelSelect.value) ?? data.models[0];

/** Shows the fields the chosen model and format use. */
function refreshFields(resetFormat: boolean, keepFormat = false): void {
  const model = current();
  if (resetFormat) {
    // Only the ways that serve this model; the one chosen stays where it can.
    for (const option of throughSelect.options) option.disabled = formatsThrough(model, option.value as Through).length === 0;
    if (throughSelect.selectedOptions[0]?.disabled) throughSelect.value = 'direct';
    const was = formatSelect.value;
    const formats = formatsThrough(model, throughSelect.value as Through);
    formatSelect.replaceChildren(...formats.map((f) => el('option', { value: f }, FORMAT_LABELS[f])));
    if (keepFormat && formats.includes(was as Format)) formatSelect.value = was;
  }
  const format = formatSelect.value as Format;
  const text = ['chat', 'responses', 'messages', 'gemini', 'converse'].includes(format);
  field('system-field').hidden = !text;
  field('sampling').hidden = !(text || format === 'completions');
  field('documents-field').hidden = format !== 'rerank';
  field('voice-field').hidden = !format.includes('speech');
  const image = format === 'images' || format === 'gemini-image';
  field('image-options').hidden = !image;
  if (image && resetFormat) {
    const size = field<HTMLSelectElement>('size');
    size.replaceChildren(...(model.sizes ?? []).map((s) => el('option', { value: s, selected: s === model.defaultSize }, s)));
    field('size-label').textContent = format === 'gemini-image' ? 'Aspect ratio' : 'Size';
    const n = field<HTMLInputElement>('n');
    n.max = String(model.maxImages ?? 1);
    n.value = '1';
  }
  const voices = format === 'speech' ? OPENAI_VOICES : GEMINI_VOICES;
  field('voices').replaceChildren(...voices.map((v) => el('option', { value: v })));
  const voice = field<HTMLInputElement>('voice');
  if (!voices.includes(voice.value)) voice.value = voices[0];
  field('message-label').textContent =
    {
      embeddings: 'Input',
      rerank: 'Query',
      speech: 'Text to speak',
      'gemini-speech': 'Text to speak',
      images: 'Prompt',
      'gemini-image': 'Prompt',
      completions: 'Prompt',
    }[format as string] ?? 'Message';
  formatSelect.disabled = formatSelect.options.length < 2;
  showRequest();
}

/** The endpoint line, and the curl command when it is shown: both always the request Send would make now. */
function showRequest(): void {
  const b = build();
  const url = new URL(b.url);
  field('endpoint').textContent = `POST ${url.pathname}${url.search}`;
  if (!field('curl-box').hidden) field('curl').textContent = asCurl(b);
}

interface Built {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  format: Format;
  stream: boolean;
}

const numberOf = (id: string) => {
  const value = field<HTMLInputElement>(id).value.trim();
  return value === '' ? undefined : Number(value);
};

/** The request, exactly as it will be sent: with the pace chosen (x-mock-latency), so a stream can be watched. */
function build(): Built {
  const b = buildRequest();
  const latency = field<HTMLSelectElement>('latency').value;
  return latency ? { ...b, headers: { ...b.headers, 'x-mock-latency': latency } } : b;
}

/** The request for the model, format and fields chosen, sent the way chosen. */
function buildRequest(): Built {
  const model = current();
  return through(vendorRequest(), throughSelect.value as Through, model);
}

/** `b` (a request on the vendor's own paths) as the dialect `via` expects it: its path, its key header, its body. */
function through(b: Built, via: Through, model: Model): Built {
  const url = new URL(b.url);
  const token = tokenInput.value.trim();
  const json = { 'content-type': 'application/json' };
  switch (via) {
    case 'direct':
    case 'bedrock':
      return b;
    case 'openrouter':
      url.pathname = `/api${url.pathname}`;
      return { ...b, url: url.href, body: { ...b.body, model: model.routerId } };
    case 'azure': {
      // The Responses API has no deployment path; every other operation is the deployment's, which names the model.
      if (b.format === 'responses') url.pathname = `/openai${url.pathname}`;
      else {
        url.pathname = url.pathname.replace(/^\/v1/, `/openai/deployments/${encodeURIComponent(model.id)}`);
        url.searchParams.set('api-version', AZURE_API_VERSION);
      }
      const { model: _named, ...body } = b.body;
      return { ...b, url: url.href, headers: { 'api-key': token, ...json }, body: b.format === 'responses' ? b.body : body };
    }
    case 'vertex': {
      const bearer = { authorization: `Bearer ${token}`, ...json };
      if (b.format !== 'messages') {
        url.pathname = url.pathname.replace(/^\/v1beta\/models/, VERTEX_GOOGLE);
        return { ...b, url: url.href, headers: bearer };
      }
      // Claude on Vertex: the model in the path, the API version in the body.
      url.pathname = `${VERTEX_ANTHROPIC}/${encodeURIComponent(model.id)}:${b.stream ? 'streamRawPredict' : 'rawPredict'}`;
      const { model: _named, ...body } = b.body;
      return { ...b, url: url.href, headers: bearer, body: { anthropic_version: 'vertex-2023-10-16', ...body } };
    }
  }
}

/** The request on the vendor's own paths. */
function vendorRequest(): Built {
  const model = current();
  const format = formatSelect.value as Format;
  const token = tokenInput.value.trim();
  const system = field<HTMLTextAreaElement>('system').value.trim();
  const text = message.value;
  const temperature = numberOf('temperature');
  const maxTokens = numberOf('max-tokens');
  const stream = streamBox.checked && !field('sampling').hidden;
  const bearer = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const origin = location.origin;
  switch (format) {
    case 'chat': {
      const messages = [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: text }];
      const body = {
        model: model.id,
        messages,
        temperature,
        max_completion_tokens: maxTokens,
        stream: stream || undefined,
        stream_options: stream ? { include_usage: true } : undefined,
      };
      return { url: `${origin}/v1/chat/completions`, headers: bearer, body, format, stream };
    }
    case 'responses':
      return {
        url: `${origin}/v1/responses`,
        headers: bearer,
        body: {
          model: model.id,
          instructions: system || undefined,
          input: text,
          temperature,
          max_output_tokens: maxTokens,
          stream: stream || undefined,
        },
        format,
        stream,
      };
    case 'messages':
      return {
        url: `${origin}/v1/messages`,
        headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: {
          model: model.id,
          max_tokens: maxTokens ?? 1024,
          system: system || undefined,
          messages: [{ role: 'user', content: text }],
          temperature,
          stream: stream || undefined,
        },
        format,
        stream,
      };
    case 'gemini': {
      const method = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
      return {
        url: `${origin}/v1beta/models/${encodeURIComponent(model.id)}:${method}`,
        headers: { 'x-goog-api-key': token, 'content-type': 'application/json' },
        body: {
          contents: [{ role: 'user', parts: [{ text }] }],
          systemInstruction: system ? { parts: [{ text: system }] } : undefined,
          generationConfig: { temperature, maxOutputTokens: maxTokens },
        },
        format,
        stream,
      };
    }
    case 'completions':
      return {
        url: `${origin}/v1/completions`,
        headers: bearer,
        body: {
          model: model.id,
          prompt: text,
          temperature,
          max_tokens: maxTokens ?? 256,
          stream: stream || undefined,
          stream_options: stream ? { include_usage: true } : undefined,
        },
        format,
        stream,
      };
    case 'embeddings':
      return {
        url: `${origin}/v1/embeddings`,
        headers: bearer,
        body: { model: model.id, input: text, encoding_format: 'float' },
        format,
        stream: false,
      };
    case 'rerank': {
      const documents = field<HTMLTextAreaElement>('documents')
        .value.split('\n')
        .map((d) => d.trim())
        .filter(Boolean);
      return { url: `${origin}/v1/rerank`, headers: bearer, body: { model: model.id, query: text, documents }, format, stream: false };
    }
    case 'speech':
      return {
        url: `${origin}/v1/audio/speech`,
        headers: bearer,
        body: { model: model.id, input: text, voice: field<HTMLInputElement>('voice').value, response_format: 'wav' },
        format,
        stream: false,
      };
    case 'gemini-speech':
      return {
        url: `${origin}/v1beta/models/${encodeURIComponent(model.id)}:generateContent`,
        headers: { 'x-goog-api-key': token, 'content-type': 'application/json' },
        body: {
          contents: [{ parts: [{ text }] }],
          generationConfig: {
            responseModalities: ['AUDIO'],
            speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: field<HTMLInputElement>('voice').value } } },
          },
        },
        format,
        stream: false,
      };
    case 'images': {
      // dall-e models choose between url and b64_json; gpt-image models always answer b64_json.
      const body = {
        model: model.id,
        prompt: text,
        n: numberOf('n') ?? 1,
        size: field<HTMLSelectElement>('size').value || undefined,
        response_format: model.id.startsWith('dall-e') ? 'b64_json' : undefined,
      };
      return { url: `${origin}/v1/images/generations`, headers: bearer, body, format, stream: false };
    }
    case 'converse': {
      // Bedrock's own schema: content blocks, a system list, inferenceConfig; the model in the path.
      const modelId = encodeURIComponent(model.id);
      return {
        url: `${origin}/model/${modelId}/${stream ? 'converse-stream' : 'converse'}`,
        headers: bearer,
        body: {
          messages: [{ role: 'user', content: [{ text }] }],
          system: system ? [{ text: system }] : undefined,
          inferenceConfig: { temperature, maxTokens },
        },
        format,
        stream,
      };
    }
    case 'gemini-image': {
      const n = numberOf('n') ?? 1;
      const aspectRatio = field<HTMLSelectElement>('size').value || undefined;
      return {
        url: `${origin}/v1beta/models/${encodeURIComponent(model.id)}:generateContent`,
        headers: { 'x-goog-api-key': token, 'content-type': 'application/json' },
        body: {
          contents: [{ role: 'user', parts: [{ text }] }],
          generationConfig: {
            responseModalities: ['IMAGE', 'TEXT'],
            candidateCount: n > 1 ? n : undefined,
            imageConfig: aspectRatio ? { aspectRatio } : undefined,
          },
        },
        format,
        stream: false,
      };
    }
  }
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function asCurl(b: Built): string {
  const lines = [
    `curl ${b.stream ? '-N ' : ''}${shellQuote(b.url)}`,
    ...Object.entries(b.headers).map(([k, v]) => `-H ${shellQuote(`${k}: ${v}`)}`),
    `-d ${shellQuote(JSON.stringify(b.body))}`,
  ];
  if (b.format === 'speech') lines.push('-o speech.wav');
  return lines.join(' \\\n  ');
}

type Progress = StreamSink;

/** Text and usage out of a whole (not streamed) reply. */
function readWhole(format: Format, d: any, p: Progress): void {
  switch (format) {
    case 'chat':
      p.text(d.choices?.[0]?.message?.content ?? '');
      p.usage({ input: d.usage?.prompt_tokens, output: d.usage?.completion_tokens });
      break;
    case 'completions':
      p.text(d.choices?.[0]?.text ?? '');
      p.usage({ input: d.usage?.prompt_tokens, output: d.usage?.completion_tokens });
      break;
    case 'responses':
      for (const item of d.output ?? []) for (const c of item.content ?? []) if (c.type === 'output_text') p.text(c.text);
      p.usage({ input: d.usage?.input_tokens, output: d.usage?.output_tokens });
      break;
    case 'messages':
      for (const c of d.content ?? []) if (c.type === 'text') p.text(c.text);
      p.usage({ input: d.usage?.input_tokens, output: d.usage?.output_tokens });
      break;
    case 'gemini':
      readGemini(d, p);
      break;
    case 'converse':
      for (const c of d.output?.message?.content ?? []) if (c.text) p.text(c.text);
      p.usage({ input: d.usage?.inputTokens, output: d.usage?.outputTokens });
      break;
  }
}

/** 16-bit mono PCM wrapped in a WAV header, so an <audio> element can play it. */
function wavOf(pcm: Uint8Array, rate: number): Blob {
  const header = new DataView(new ArrayBuffer(44));
  const ascii = (at: number, s: string) => [...s].forEach((c, i) => header.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  header.setUint32(4, 36 + pcm.byteLength, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  header.setUint32(16, 16, true);
  header.setUint16(20, 1, true);
  header.setUint16(22, 1, true);
  header.setUint32(24, rate, true);
  header.setUint32(28, rate * 2, true);
  header.setUint16(32, 2, true);
  header.setUint16(34, 16, true);
  ascii(36, 'data');
  header.setUint32(40, pcm.byteLength, true);
  return new Blob([header.buffer, pcm as Uint8Array<ArrayBuffer>], { type: 'audio/wav' });
}

const base64Bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));

let audioUrl: string | undefined;
function playAudio(blob: Blob): void {
  if (audioUrl) URL.revokeObjectURL(audioUrl);
  audioUrl = URL.createObjectURL(blob);
  const audio = el('audio', { controls: true, src: audioUrl, 'aria-label': 'Speech reply' });
  media.replaceChildren(audio);
  void audio.play().catch(() => {
    // Autoplay may be refused; the controls are there.
  });
}

/**
 * Why the gateway refused the token, in words: a scoped token used on another model is a good token
 * (the 403's message names the models it may use), not a bad one.
 */
function refusal(status: number, text: string): string {
  const scoped = /scoped to: (.+?)\.?$/.exec(text);
  if (status === 403 && scoped) return `This token is scoped to other models: ${scoped[1]}. Choose one of them, or use another token.`;
  return `This token is refused (${status}).`;
}

function showImages(sources: string[]): void {
  media.replaceChildren(...sources.map((src, i) => el('img', { src, alt: `Image ${i + 1} for: ${message.value}` })));
}

/** Says next to the token field whether the last request's token was accepted. */
function tokenSays(text: string, ok: boolean): void {
  const status = field('token-status');
  status.textContent = text;
  status.className = `meta ${ok ? 'good' : 'bad'}`;
}

function showError(text: string): void {
  reply.className = 'output error';
  reply.textContent = text;
  announce(text);
}

let controller: AbortController | undefined;

async function submit(): Promise<void> {
  const b = build();
  controller = new AbortController();
  reply.className = 'output';
  reply.hidden = false;
  reply.textContent = '';
  media.replaceChildren();
  usage.textContent = '';
  send.disabled = true;
  stop.hidden = !b.stream;
  reply.setAttribute('aria-busy', 'true');
  const started = performance.now();
  let first: number | undefined;
  let pieces = 0;
  const used: Usage = {};
  const progress: Progress = {
    text(piece) {
      first ??= performance.now();
      pieces++;
      reply.textContent += piece;
    },
    usage(u) {
      if (u.input !== undefined) used.input = u.input;
      if (u.output !== undefined) used.output = u.output;
    },
    // An error inside a stream ends the request, shown as its error.
    error(text) {
      throw new Error(`stream error: ${text}`);
    },
  };
  const facts: string[] = [];
  try {
    const res = await fetch(b.url, { method: 'POST', headers: b.headers, body: JSON.stringify(b.body), signal: controller.signal });
    facts.push(`HTTP ${res.status}`);
    if (!res.ok) {
      const body = await res.json().catch(() => ({}));
      showError(errorMessage(body, res));
      if (res.status === 401 || res.status === 403 || res.status === 429) tokenSays(refusal(res.status, errorMessage(body, res)), false);
      return;
    }
    tokenSays('This token works.', true);
    if (b.format === 'speech') {
      const blob = await res.blob();
      playAudio(blob.type ? blob : new Blob([blob], { type: 'audio/wav' }));
      facts.push(`${blob.size} bytes of ${res.headers.get('content-type') ?? 'audio'}`);
    } else if (b.stream && res.body) {
      // Bedrock streams in AWS event-stream frames, the others in server-sent events.
      const read = b.format === 'converse' ? readEventStream : readEvents;
      await read(res.body, (e) => readStreamEvent(b.format as TextApi, e.event, e.data, progress), controller.signal);
      facts.push(`${pieces} streamed pieces`);
    } else {
      const d = await res.json();
      if (b.format === 'embeddings') {
        const vector: number[] = d.data?.[0]?.embedding ?? [];
        reply.textContent = `${vector.length} dimensions: [${vector
          .slice(0, 8)
          .map((v) => v.toFixed(6))
          .join(', ')}${vector.length > 8 ? ', …' : ''}]`;
        used.input = d.usage?.prompt_tokens;
      } else if (b.format === 'rerank') {
        reply.textContent = (d.results ?? [])
          .map((r: any) => `${r.relevance_score.toFixed(4)}  ${r.document?.text ?? `#${r.index}`}`)
          .join('\n');
        used.input = d.usage?.total_tokens;
      } else if (b.format === 'images') {
        const images: any[] = d.data ?? [];
        showImages(images.map((image) => (image.b64_json ? `data:image/${d.output_format ?? 'png'};base64,${image.b64_json}` : image.url)));
        if (images[0]?.revised_prompt) reply.textContent = images[0].revised_prompt;
      } else if (b.format === 'gemini-image') {
        // Each candidate is one image (with a line of text when TEXT was asked for too).
        const parts: any[] = (d.candidates ?? []).flatMap((c: any) => c.content?.parts ?? []);
        showImages(
          parts
            .filter((p) => p.inlineData?.mimeType?.startsWith('image/'))
            .map((p) => `data:${p.inlineData.mimeType};base64,${p.inlineData.data}`),
        );
        reply.textContent = parts
          .filter((p) => p.text && !p.thought)
          .map((p) => p.text)
          .join('\n');
        readGemini(d, { text: () => {}, usage: progress.usage });
      } else if (b.format === 'gemini-speech') {
        const part = d.candidates?.[0]?.content?.parts?.find((p: any) => p.inlineData);
        const rate = Number(/rate=(\d+)/.exec(part?.inlineData?.mimeType ?? '')?.[1] ?? 24000);
        if (part) playAudio(wavOf(base64Bytes(part.inlineData.data), rate));
        readGemini(d, { text: () => {}, usage: progress.usage });
      } else readWhole(b.format, d, progress);
    }
    if (!reply.textContent && !media.childElementCount) reply.textContent = '(empty reply)';
  } catch (error) {
    if ((error as Error).name === 'AbortError') facts.push('stopped');
    else showError(String((error as Error).message ?? error));
  } finally {
    const total = performance.now() - started;
    const counts = [
      used.input !== undefined && `${used.input} input tokens`,
      used.output !== undefined && `${used.output} output tokens`,
    ].filter(Boolean);
    if (counts.length) facts.push(counts.join(', '));
    reply.hidden = !reply.textContent && media.childElementCount > 0;
    if (first !== undefined && b.stream) facts.push(`first text after ${Math.round(first - started)} ms`);
    facts.push(`${Math.round(total)} ms in all`);
    usage.textContent = facts.join(' · ');
    reply.setAttribute('aria-busy', 'false');
    send.disabled = false;
    stop.hidden = true;
    controller = undefined;
  }
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (!tokenInput.value.trim()) return showError('Enter a token: the issued ones are listed on the home page.');
  void submit();
});
stop.addEventListener('click', () => controller?.abort());
field('show-curl').addEventListener('click', () => {
  field('curl-box').hidden = false;
  field('show-curl').setAttribute('aria-expanded', 'true');
  showRequest();
});
// Whatever changes (model, message, options, token), the curl shown is the request Send would make.
form.addEventListener('input', showRequest);
form.addEventListener('change', showRequest);
modelSelect.addEventListener('change', () => refreshFields(true));
formatSelect.addEventListener('change', () => refreshFields(false));
throughSelect.addEventListener('change', () => refreshFields(true, true));
streamBox.addEventListener('change', () => refreshFields(false));
tokenInput.addEventListener('input', () => (field('token-status').textContent = ''));
// Ctrl/Cmd+Enter sends from the message box.
message.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) form.requestSubmit();
});

const params = new URLSearchParams(location.search);
if (params.get('token')) tokenInput.value = params.get('token')!;
if (params.get('model') && data.models.some((m) => m.id === params.get('model'))) modelSelect.value = params.get('model')!;
else if (data.models.some((m) => m.id === 'gpt-4o-mini')) modelSelect.value = 'gpt-4o-mini';
if (THROUGH.includes(params.get('through') as Through)) throughSelect.value = params.get('through')!;
refreshFields(true);
wireCopyButtons();
