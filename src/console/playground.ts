// The playground: any model of the catalogue, called through the public API exactly as a client
// would (the script builds the request; "Show as curl" prints the same request).
import { html, page } from './html.ts';
import type { Capability, ModelInfo } from '../core/models.ts';
import type { IssuedToken } from '../auth/keys.ts';
import { snippetToken } from './home.ts';
import { familyOf, RULES } from '../formats/openai/images.ts';
import { ASPECT_RATIOS, GENERATION_FIELDS } from '../formats/gemini/parse.ts';
import { openrouterId } from '../formats/openrouter/models.ts';

/** The kinds the playground can call, in picker order, with their group labels. */
const PLAYGROUND_KINDS: readonly [Capability, string][] = [
  ['chat', 'Chat'],
  ['completion', 'Completion (legacy)'],
  ['embedding', 'Embedding'],
  ['rerank', 'Rerank'],
  ['speech', 'Speech'],
  ['image', 'Image'],
];

interface PlaygroundData {
  token: string;
  tokens: string[];
  models: PlaygroundModel[];
}

interface PlaygroundModel {
  id: string;
  vendor: string;
  kind: Capability;
  dimensions?: number;
  /** Its id on OpenRouter (`openai/gpt-4o-mini`), for requests sent through it. */
  routerId: string;
  /** Image models: what the gateway accepts for size (OpenAI) or aspect ratio (Gemini), and for the number of images. */
  sizes?: string[];
  defaultSize?: string;
  maxImages?: number;
}

/** The size and count choices of an image model, as the gateway validates them. */
function imageChoices(m: ModelInfo): Pick<PlaygroundModel, 'sizes' | 'defaultSize' | 'maxImages'> {
  if (m.owned_by === 'google')
    return { sizes: Object.keys(ASPECT_RATIOS), defaultSize: '1:1', maxImages: GENERATION_FIELDS.candidateCount.max };
  const rules = RULES[familyOf(m.id)];
  return { sizes: rules.sizes, defaultSize: rules.defaultSize, maxImages: rules.maxN };
}

export function playgroundPage(tokens: readonly IssuedToken[], catalogue: readonly ModelInfo[]): string {
  // A model that draws is offered as an image model, even when it can chat too (Gemini's image models).
  const kindOf = (m: ModelInfo) =>
    m.capabilities.includes('image') ? 'image' : PLAYGROUND_KINDS.find(([k]) => m.capabilities.includes(k))?.[0];
  const models = catalogue.flatMap((m): PlaygroundModel[] => {
    const kind = kindOf(m);
    if (!kind) return [];
    return [
      {
        id: m.id,
        vendor: m.owned_by,
        kind,
        dimensions: m.dimensions,
        routerId: openrouterId(m),
        ...(kind === 'image' ? imageChoices(m) : {}),
      },
    ];
  });
  const data: PlaygroundData = { token: snippetToken(tokens), tokens: tokens.map((t) => t.token), models };
  const groups = PLAYGROUND_KINDS.map(([kind, label]) => {
    const own = models.filter((m) => m.kind === kind);
    return own.length ? html`<optgroup label="${label}">${own.map((m) => html`<option value="${m.id}">${m.id}</option>`)}</optgroup>` : '';
  });
  const body = html`
<div class="grid2">
<form id="form" novalidate>
  <label for="token">Token</label>
  <input id="token" name="token" list="issued-tokens" autocomplete="off" spellcheck="false" value="${data.token}" required>
  <p id="token-status" class="meta" role="status"></p>
  <datalist id="issued-tokens">${data.tokens.map((t) => html`<option value="${t}"></option>`)}</datalist>
  <div class="row">
    <div><label for="model">Model</label><select id="model" name="model">${groups}</select></div>
    <div><label for="format">Request format</label><select id="format" name="format" aria-describedby="endpoint"></select></div>
    <div><label for="through">Through</label><select id="through" name="through" aria-describedby="endpoint"><option value="direct">Direct</option><option value="azure">Azure OpenAI</option><option value="openrouter">OpenRouter</option><option value="vertex">Vertex AI</option><option value="bedrock">Bedrock Converse</option></select></div>
  </div>
  <p class="meta mono" id="endpoint"></p>
  <div id="system-field"><label for="system">System prompt</label><textarea id="system" name="system" rows="2" placeholder="Optional"></textarea></div>
  <label for="message" id="message-label">Message</label>
  <textarea id="message" name="message" rows="4" required placeholder="Say hello"></textarea>
  <div id="documents-field" hidden><label for="documents">Documents, one per line</label><textarea id="documents" name="documents" rows="4"></textarea></div>
  <div class="row" id="image-options" hidden>
    <div class="narrow"><label for="size" id="size-label">Size</label><select id="size" name="size"></select></div>
    <div class="narrow"><label for="n">Images</label><input id="n" name="n" type="number" min="1" step="1" value="1" inputmode="numeric"></div>
  </div>
  <div id="voice-field" hidden><label for="voice">Voice</label><input id="voice" name="voice" list="voices" autocomplete="off"><datalist id="voices"></datalist></div>
  <div class="row" id="sampling">
    <div class="narrow"><label for="temperature">Temperature</label><input id="temperature" name="temperature" type="number" min="0" max="2" step="0.1" value="1" inputmode="decimal"></div>
    <div class="narrow"><label for="max-tokens">Max tokens</label><input id="max-tokens" name="maxTokens" type="number" min="1" step="1" placeholder="default" inputmode="numeric"></div>
    <div class="narrow"><label class="inline"><input id="stream" name="stream" type="checkbox" checked> Stream</label></div>
  </div>
  <div class="row">
    <div><label for="latency">Latency</label><select id="latency" name="latency" aria-describedby="latency-hint">
      <option value="">the server's own</option>
      <option value="realistic">realistic: 450 ms to the first token, then 60 tokens/s</option>
      <option value="slow">slow: 2 s to the first token, then 15 tokens/s</option>
      <option value="ttft=1000,tps=5,jitter=0">very slow: 1 s, then 5 tokens/s</option>
    </select>
    <p class="meta" id="latency-hint">Sent as the <code>x-mock-latency</code> header, so a stream arrives at a pace you can watch.</p></div>
  </div>
  <div class="actions">
    <button id="send" type="submit">Send</button>
    <button id="stop" type="button" class="secondary" hidden>Stop</button>
    <button id="show-curl" type="button" class="secondary" aria-expanded="false" aria-controls="curl-box">Show as curl</button>
  </div>
</form>
<section aria-labelledby="reply-heading">
  <h2 id="reply-heading">Reply</h2>
  <div id="reply" class="output" role="status" aria-live="polite" aria-busy="false"></div>
  <div id="media" class="media"></div>
  <p id="usage" class="meta"></p>
  <div id="curl-box" hidden>
    <h2>The request as curl</h2>
    <div class="snippet"><pre id="curl" class="wrap" tabindex="0"></pre><button type="button" class="copy secondary" data-copy-from="curl" aria-label="Copy the curl command">Copy</button></div>
  </div>
</section>
</div>`;
  return page({
    path: '/console/playground',
    lead: 'Send a request to any model through the public API, as a client would, directly or through a cloud or a router. A bad token shows the gateway’s own error.',
    body,
    script: 'playground',
    data,
  });
}
