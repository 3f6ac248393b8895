// The platform home page: each format's base address, the issued tokens, and snippets that run as
// pasted, filled in with this server's address and a token.
import { html, page, type Markup } from './html.ts';
import type { ModelInfo } from '../core/models.ts';
import type { IssuedToken } from '../auth/keys.ts';
import { openrouterId } from '../formats/openrouter/models.ts';

/** A word for a POSIX shell, single-quoted. */
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Snippet {
  id: string;
  title: string;
  note: string;
  code: string;
}

/** The first chat model of each vendor: what the snippets call. */
function chatModels(models: readonly ModelInfo[]) {
  const chat = (vendor: string, fallback: string) =>
    models.find((m) => m.owned_by === vendor && m.capabilities.includes('chat'))?.id ?? fallback;
  return {
    openai: chat('openai', 'gpt-4o-mini'),
    anthropic: chat('anthropic', 'claude-sonnet-5-5'),
    gemini: chat('google', 'gemini-2.5-flash'),
  };
}

/** The snippets, for a server at `base` and `token`, using the first chat model of each vendor. */
function snippets(base: string, token: string, models: readonly ModelInfo[]): Snippet[] {
  const { openai, anthropic, gemini } = chatModels(models);
  const q = JSON.stringify;
  const body = JSON.stringify({ model: openai, messages: [{ role: 'user', content: 'Hello' }] });
  return [
    {
      id: 'curl',
      title: 'curl',
      note: 'Any language, any HTTP client: the OpenAI format.',
      code: `curl ${shellQuote(`${base}/v1/chat/completions`)} \\
  -H ${shellQuote(`Authorization: Bearer ${token}`)} \\
  -H 'Content-Type: application/json' \\
  -d ${shellQuote(body)}`,
    },
    {
      id: 'openai',
      title: 'openai (Node.js)',
      note: 'npm install openai; save as hello.mjs and run node hello.mjs.',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${q(`${base}/v1`)}, apiKey: ${q(token)} });
const reply = await client.chat.completions.create({
  model: ${q(openai)},
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(reply.choices[0].message.content);`,
    },
    {
      id: 'anthropic',
      title: '@anthropic-ai/sdk',
      note: 'npm install @anthropic-ai/sdk',
      code: `import Anthropic from '@anthropic-ai/sdk';

const client = new Anthropic({ baseURL: ${q(base)}, apiKey: ${q(token)} });
const message = await client.messages.create({
  model: ${q(anthropic)},
  max_tokens: 512,
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(message.content[0].type === 'text' ? message.content[0].text : message.content);`,
    },
    {
      id: 'genai',
      title: '@google/genai',
      note: 'npm install @google/genai',
      code: `import { GoogleGenAI } from '@google/genai';

const client = new GoogleGenAI({ apiKey: ${q(token)}, httpOptions: { baseUrl: ${q(base)} } });
const reply = await client.models.generateContent({ model: ${q(gemini)}, contents: 'Hello' });
console.log(reply.text);`,
    },
    {
      id: 'msw',
      title: 'In-process with msw (no server)',
      note: 'npm install -D model-gateway-mock msw; the same gateway inside a test process.',
      code: `import { setupServer } from 'msw/node';
import OpenAI from 'openai';
import { createGateway } from 'model-gateway-mock';

const gateway = createGateway({ tokens: [${q(token)}] });
const server = setupServer(...gateway.handlers);
server.listen();

// Create clients after listen(): the SDK keeps the fetch it finds when constructed.
const client = new OpenAI({ apiKey: ${q(token)} });
const reply = await client.chat.completions.create({
  model: ${q(openai)},
  messages: [{ role: 'user', content: 'Hello' }],
});
console.log(reply.choices[0].message.content, gateway.requests().length);
server.close();`,
    },
  ];
}

interface CloudSnippet extends Snippet {
  /** The address the client's options point at. */
  address: string;
}

/**
 * The clients teams reach the same models with through a cloud or a router, each built with its
 * constructor options pointing at this server, with the dummy credentials its docs page gives.
 */
function cloudSnippets(base: string, token: string, models: readonly ModelInfo[]): CloudSnippet[] {
  const { openai, anthropic, gemini } = chatModels(models);
  const q = JSON.stringify;
  const hello = `[{ role: 'user', content: 'Hello' }]`;
  // Vertex's clients take an OAuth access token from google-auth-library: an auth client holding the gateway's token.
  const vertexAuth = `import { OAuth2Client } from 'google-auth-library';

// An auth client holding a fixed access token (the gateway's): no Google account, nothing sent to Google.
const authClient = new OAuth2Client();
authClient.setCredentials({ access_token: ${q(token)} });`;
  const aws = `{ accessKeyId: ${q(token)}, secretAccessKey: 'any-secret' }`;
  const routed = openrouterId(models.find((m) => m.id === openai) ?? { id: openai, owned_by: 'openai' });
  return [
    {
      id: 'azure',
      title: 'AzureOpenAI (openai)',
      address: base,
      note: 'Azure OpenAI: the deployment paths under /openai, the key in api-key. A deployment named for a catalogue model is that model (docs/azure.md).',
      code: `import { AzureOpenAI } from 'openai';

const client = new AzureOpenAI({ endpoint: ${q(base)}, apiVersion: '2024-10-21', apiKey: ${q(token)}, deployment: ${q(openai)} });
const reply = await client.chat.completions.create({ model: ${q(openai)}, messages: ${hello} });
console.log(reply.choices[0].message.content);`,
    },
    {
      id: 'ai-sdk-azure',
      title: '@ai-sdk/azure',
      address: `${base}/openai/v1`,
      note: "npm install ai @ai-sdk/azure; Azure's v1 API, deployments named as models.",
      code: `import { createAzure } from '@ai-sdk/azure';
import { generateText } from 'ai';

const azure = createAzure({ baseURL: ${q(`${base}/openai/v1`)}, apiKey: ${q(token)} });
const { text } = await generateText({ model: azure.chat(${q(openai)}), prompt: 'Hello' });
console.log(text);`,
    },
    {
      id: 'vertex-genai',
      title: 'GoogleGenAI on Vertex AI',
      address: base,
      note: 'npm install @google/genai google-auth-library; Gemini under a project and location (docs/vertex.md).',
      code: `import { GoogleGenAI } from '@google/genai';
${vertexAuth}
const client = new GoogleGenAI({
  vertexai: true,
  project: 'my-project',
  location: 'us-central1',
  httpOptions: { baseUrl: ${q(base)} },
  googleAuthOptions: { authClient },
});
const reply = await client.models.generateContent({ model: ${q(gemini)}, contents: 'Hello' });
console.log(reply.text);`,
    },
    {
      id: 'anthropic-vertex',
      title: 'AnthropicVertex',
      address: `${base}/v1`,
      note: 'npm install @anthropic-ai/vertex-sdk google-auth-library; Claude by rawPredict.',
      code: `import { AnthropicVertex } from '@anthropic-ai/vertex-sdk';
${vertexAuth}
const client = new AnthropicVertex({ region: 'us-east5', projectId: 'my-project', baseURL: ${q(`${base}/v1`)}, authClient });
const message = await client.messages.create({ model: ${q(anthropic)}, max_tokens: 512, messages: ${hello} });
console.log(message.content[0].type === 'text' ? message.content[0].text : message.content);`,
    },
    {
      id: 'anthropic-bedrock',
      title: 'AnthropicBedrock',
      address: base,
      note: 'npm install @anthropic-ai/bedrock-sdk; InvokeModel, SigV4 signed with the token as the access key id (docs/bedrock.md).',
      code: `import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';

const client = new AnthropicBedrock({ baseURL: ${q(base)}, awsRegion: 'us-east-1', awsAccessKey: ${q(token)}, awsSecretKey: 'any-secret' });
const message = await client.messages.create({ model: ${q(anthropic)}, max_tokens: 512, messages: ${hello} });
console.log(message.content[0].type === 'text' ? message.content[0].text : message.content);`,
    },
    {
      id: 'bedrock-runtime',
      title: 'BedrockRuntimeClient (AWS SDK)',
      address: base,
      note: "npm install @aws-sdk/client-bedrock-runtime; Converse, with the SDK's defaults (HTTP/2, answered on the same port).",
      code: `import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';

const client = new BedrockRuntimeClient({ endpoint: ${q(base)}, region: 'us-east-1', credentials: ${aws} });
const reply = await client.send(
  new ConverseCommand({ modelId: ${q(anthropic)}, messages: [{ role: 'user', content: [{ text: 'Hello' }] }] }),
);
console.log(reply.output.message.content[0].text);
client.destroy();`,
    },
    {
      id: 'openrouter',
      title: 'OpenRouter (openai)',
      address: `${base}/api/v1`,
      note: "OpenRouter's API under /api/v1; models named vendor/model (docs/openrouter.md).",
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: ${q(`${base}/api/v1`)}, apiKey: ${q(token)} });
const reply = await client.chat.completions.create({ model: ${q(routed)}, messages: ${hello} });
console.log(reply.choices[0].message.content);`,
    },
  ];
}

function copyLine(id: string, label: string, name: string, value: string): Markup {
  return html`<label for="${id}">${label}</label>
<div class="copyline"><input id="${id}" readonly value="${value}"><button type="button" class="secondary" data-copy-from="${id}" aria-label="Copy the ${name} base address">Copy</button></div>`;
}

/** The token the snippets use: the first that may call every model, else the first. */
export function snippetToken(tokens: readonly IssuedToken[]): string {
  return (tokens.find((t) => !t.models && t.quota === undefined) ?? tokens[0])?.token ?? 'sk-test';
}

export function homePage(base: string, tokens: readonly IssuedToken[], models: readonly ModelInfo[]): string {
  const token = snippetToken(tokens);
  const all = snippets(base, token, models);
  const clouds = cloudSnippets(base, token, models);
  const tokenRows = tokens.map(
    (t, i) => html`<li class="copyline"><input id="token-${i}" readonly value="${t.token}" aria-label="Token ${i + 1}">
<button type="button" class="secondary" data-copy-from="token-${i}" aria-label="Copy token ${i + 1}">Copy</button>
${t.models ? html`<span class="muted">models: ${t.models.join(', ')}</span>` : ''}${t.quota !== undefined ? html` <span class="muted">quota: ${t.quota}</span>` : ''}</li>`,
  );
  const body = html`
<section aria-labelledby="bases">
<h2 id="bases">Base addresses</h2>
${copyLine('base-openai', 'OpenAI-compatible clients (chat completions, responses, embeddings…)', 'OpenAI', `${base}/v1`)}
${copyLine('base-anthropic', 'Anthropic clients (messages)', 'Anthropic', base)}
${copyLine('base-gemini', 'Gemini clients (generate-content)', 'Gemini', `${base}/v1beta`)}
<p class="muted">@google/genai takes <code>${base}</code> as <code>httpOptions.baseUrl</code> and adds the API version (<code>/v1beta</code> or <code>/v1</code>) itself; both answer.</p>
</section>
<section aria-labelledby="tokens">
<h2 id="tokens">Issued tokens</h2>
<p class="muted">This is a local emulator, so tokens are shown. Issue scoped ones on the <a href="/console/tokens">tokens page</a>.</p>
<ul class="plain" id="token-list">${tokenRows}</ul>
</section>
<section aria-labelledby="snippets">
<h2 id="snippets">Ready to paste</h2>
<div class="tabs" role="tablist" aria-labelledby="snippets" hidden>${all.map(
    (s, i) =>
      html`<button type="button" role="tab" id="tab-${s.id}" aria-controls="panel-${s.id}" aria-selected="${i === 0 ? 'true' : 'false'}" tabindex="${i === 0 ? '0' : '-1'}">${s.title}</button>`,
  )}</div>
${all.map(
  (
    s,
  ) => html`<div class="panel" role="tabpanel" id="panel-${s.id}" aria-labelledby="tab-${s.id}"><h3 class="panel-title">${s.title}</h3><p class="muted">${s.note}</p>
<div class="snippet"><pre id="snippet-${s.id}" tabindex="0" aria-label="${s.title} snippet"><code>${s.code}</code></pre><button type="button" class="copy secondary" data-copy-from="snippet-${s.id}" aria-label="Copy the ${s.title} snippet">Copy</button></div></div>`,
)}
</section>
<section aria-labelledby="clouds">
<h2 id="clouds">Through a cloud or a router</h2>
<p class="muted">The same models by Azure OpenAI, Vertex AI, Amazon Bedrock and OpenRouter paths, with each cloud's own client and dummy credentials. Open one for its constructor options.</p>
${clouds.map(
  (
    s,
  ) => html`<details class="cloud" id="cloud-${s.id}"><summary>${s.title} <code class="muted">${s.address}</code></summary><p class="muted">${s.note}</p>
<div class="snippet"><pre id="snippet-${s.id}" tabindex="0" aria-label="${s.title} snippet"><code>${s.code}</code></pre><button type="button" class="copy secondary" data-copy-from="snippet-${s.id}" aria-label="Copy the ${s.title} snippet">Copy</button></div></details>`,
)}
</section>
<section aria-labelledby="pages">
<h2 id="pages">Pages</h2>
<ul>
<li><a href="/console/playground">Playground</a>: send a request to any model of the catalogue, as a client would.</li>
<li><a href="/console/tokens">Tokens</a>: issue tokens scoped to models and a quota, see their use, revoke them.</li>
<li><a href="/console/requests">Requests</a>: every request the gateway received, live, with bodies.</li>
<li><a href="/console/fixtures">Fixtures</a>: the loaded fixtures, scenarios and what each matched.</li>
<li><a href="/__admin/health">Health</a> (JSON) and the rest of the control plane under <code>/__admin</code>.</li>
</ul>
</section>`;
  return page({
    path: '/',
    lead: 'A deterministic emulator of an AI model gateway: OpenAI, Anthropic and Gemini formats on one port.',
    body,
    script: 'home',
  });
}
