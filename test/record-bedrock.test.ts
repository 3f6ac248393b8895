// Record mode through Amazon Bedrock (issue 38): the AWS SDK's client, built with its defaults, on an
// emulator in record mode whose upstream is a stand-in for Bedrock that checks each request's SigV4
// signature with the AWS SDK's own signer and the secret it knows (a request signed for another host,
// or with another key, is Bedrock's 403 InvalidSignatureException), then answers it from a second
// emulator. The recording then replays with no upstream: Converse and ConverseStream on Bedrock's
// paths, and an InvokeModel recording on Anthropic's own /v1/messages too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@aws-crypto/sha256-js';
import Anthropic from '@anthropic-ai/sdk';
import { startServer, type RunningServer } from '../src/server.ts';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { loadFixtureDir } from '../src/fixtures/load.ts';
import { bedrockUpstreamHeaders } from '../src/formats/bedrock/upstream.ts';
import { Recorder } from '../src/record/recorder.ts';
import { bedrockFormat } from '../src/formats/bedrock/format.ts';
import { anthropicFormat } from '../src/formats/anthropic/format.ts';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
// The test's own credentials; a bearer key or session token in the environment is set aside meanwhile.
const AWS: Record<string, string | undefined> = {
  AWS_ACCESS_KEY_ID: 'AKIDRECORDTEST',
  AWS_SECRET_ACCESS_KEY: 'the-upstream-secret',
  AWS_REGION: 'us-east-1',
  AWS_SESSION_TOKEN: undefined,
  AWS_BEARER_TOKEN_BEDROCK: undefined,
};
const FIXTURES = [
  { match: { userMessage: 'Where is the parcel?' }, reply: { text: 'In Lyon, since Wednesday.' } },
  { match: { userMessage: 'Who signed for it?' }, reply: { text: 'The courier, at noon.' } },
];

const bodyOf = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

/** Whether `req` carries the signature the AWS signer makes for it with `secret` (what Bedrock checks). */
async function signedWith(req: IncomingMessage, body: Buffer, secret: string): Promise<boolean> {
  const auth = String(req.headers.authorization ?? '');
  const credential = /Credential=([^,]+)/.exec(auth)?.[1].split('/') ?? [];
  const names = /SignedHeaders=([^,]+)/.exec(auth)?.[1].split(';') ?? [];
  const date = String(req.headers['x-amz-date'] ?? '');
  if (credential.length !== 5 || !names.length || !date) return false;
  const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
  const signer = new SignatureV4({
    credentials: { accessKeyId: credential[0], secretAccessKey: secret },
    region: credential[2],
    service: credential[3],
    sha256: Sha256,
  });
  const signingDate = new Date(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
  const again = await signer.sign(
    {
      method: req.method ?? 'POST',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: Object.fromEntries(names.map((n) => [n, String(req.headers[n] ?? '')])),
      body,
    },
    { signingDate },
  );
  return again.headers.authorization === auth;
}

/** A stand-in for Bedrock: checks the signature, then has `answering` answer (its own key, a bearer token). */
function fakeBedrock(answering: () => string): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer(async (req, res) => {
    const body = await bodyOf(req);
    seen.push(`${req.method} ${req.url}`);
    if (!(await signedWith(req, body, AWS.AWS_SECRET_ACCESS_KEY!))) {
      res.writeHead(403, { 'content-type': 'application/json', 'x-amzn-errortype': 'InvalidSignatureException' });
      return void res.end(JSON.stringify({ message: 'The request signature we calculated does not match the signature you provided.' }));
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(
        ([n]) => !['host', 'authorization', 'x-amz-date', 'x-amz-security-token', 'content-length', 'connection'].includes(n),
      ),
    ) as Record<string, string>;
    const answer = await fetch(`${answering()}${req.url}`, {
      method: req.method,
      headers: { ...headers, authorization: 'Bearer sk-test' },
      body: new Uint8Array(body),
    });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`, seen });
    }),
  );
}

const textOf = async (stream: AsyncIterable<ConverseStreamOutput> | undefined) => {
  let text = '';
  for await (const e of stream!) text += e.contentBlockDelta?.delta?.text ?? '';
  return text;
};

describe('record mode through Amazon Bedrock', () => {
  const saved: Record<string, string | undefined> = {};
  let answering: RunningServer;
  let bedrock: Awaited<ReturnType<typeof fakeBedrock>>;
  let recording: RunningServer;
  const dir = mkdtempSync(join(tmpdir(), 'mgm-record-bedrock-'));
  // Built with its defaults (HTTP/2 to the emulator); the stand-in speaks HTTP/1.1, as record mode does to it.
  const client = (url: string, http1 = false) =>
    new BedrockRuntimeClient({
      endpoint: url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'sk-test', secretAccessKey: 'any' },
      maxAttempts: 1,
      ...(http1 && { requestHandler: new NodeHttpHandler() }),
    });

  beforeAll(async () => {
    for (const [name, value] of Object.entries(AWS)) {
      saved[name] = process.env[name];
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    answering = await startServer({ port: 0, fixtures: FIXTURES });
    bedrock = await fakeBedrock(() => answering.url);
    recording = await startServer({ port: 0, record: { dir, upstreams: { bedrock: bedrock.url } } });
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await Promise.all([answering.close(), recording.close(), new Promise((r) => bedrock.server.close(r))]);
  });

  it("refuses, as Bedrock does, a request signed for another host or with another secret (the stand-in's check)", async () => {
    // The client's own signature is made for the emulator's host with a gateway token: not Bedrock's.
    const direct = await client(bedrock.url, true)
      .send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Where is the parcel?' }] }] }))
      .then(
        () => undefined,
        (e: Error) => e,
      );
    expect(direct?.name).toBe('InvalidSignatureException');
  });

  it('forwards Converse, ConverseStream and InvokeModel signed anew for the upstream, and writes recordings that replay', async () => {
    bedrock.seen.length = 0;
    const aws = client(recording.url);
    const ask = (text: string) => ({ modelId: MODEL, messages: [{ role: 'user' as const, content: [{ text }] }] });
    const plain = await aws.send(new ConverseCommand(ask('Where is the parcel?')));
    expect(plain.output?.message?.content?.[0].text).toBe('In Lyon, since Wednesday.');
    const streamed = await aws.send(new ConverseStreamCommand(ask('Who signed for it?')));
    expect(await textOf(streamed.stream)).toBe('The courier, at noon.');
    const invoke = {
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 50,
      messages: [{ role: 'user', content: 'Where is the parcel?' }],
    };
    const invoked = await aws.send(
      new InvokeModelCommand({ modelId: MODEL, contentType: 'application/json', body: JSON.stringify(invoke) }),
    );
    expect(JSON.parse(new TextDecoder().decode(invoked.body)).content[0].text).toBe('In Lyon, since Wednesday.');
    expect(bedrock.seen.map((s) => s.replace(/\/model\/[^/]+/, '/model/…'))).toEqual([
      'POST /model/…/converse',
      'POST /model/…/converse-stream',
      'POST /model/…/invoke',
    ]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.json'))).toHaveLength(3);

    // Replayed with no upstream: the same answers on Bedrock's paths, and the InvokeModel one on Anthropic's own.
    const replaying = await startServer({ port: 0, fixtures: loadFixtureDir(dir), strict: true });
    try {
      const again = client(replaying.url);
      expect((await again.send(new ConverseCommand(ask('Where is the parcel?')))).output?.message?.content?.[0].text).toBe(
        'In Lyon, since Wednesday.',
      );
      expect(await textOf((await again.send(new ConverseStreamCommand(ask('Who signed for it?')))).stream)).toBe('The courier, at noon.');
      const anthropic = new Anthropic({ apiKey: 'sk-test', baseURL: replaying.url, maxRetries: 0 });
      const direct = await anthropic.messages.create({
        model: 'claude-sonnet-4-5',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Where is the parcel?' }],
      });
      expect(direct.content[0]).toMatchObject({ type: 'text', text: 'In Lyon, since Wednesday.' });
    } finally {
      await replaying.close();
    }
  });
});

describe("record mode through Bedrock: the emulator's credentials", () => {
  const request = {
    method: 'POST',
    url: new URL('https://bedrock-runtime.eu-west-3.amazonaws.com/model/x/converse'),
    headers: {
      authorization: 'AWS4-HMAC-SHA256 Credential=sk-test/…',
      'x-amz-date': '20261128T000000Z',
      'content-type': 'application/json',
    },
    body: '{}',
  };

  it("sends a Bedrock API key as a bearer token, in place of the client's signature", async () => {
    expect(await bedrockUpstreamHeaders(request, { AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key' })).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer bedrock-api-key',
    });
  });

  it("signs for the upstream host's region with the access key, and says what to set when there is none", async () => {
    const signed = await bedrockUpstreamHeaders(request, {
      AWS_ACCESS_KEY_ID: 'AKIDX',
      AWS_SECRET_ACCESS_KEY: 's',
      AWS_SESSION_TOKEN: 't',
    });
    expect(signed.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDX\/\d{8}\/eu-west-3\/bedrock\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/,
    );
    expect(signed['x-amz-security-token']).toBe('t');
    await expect(bedrockUpstreamHeaders(request, {})).rejects.toMatchObject({ status: 403, code: 'UnrecognizedClientException' });
  });
});

describe('record mode through Bedrock: where a request goes', () => {
  it("sends Bedrock's requests (signed with the emulator's credentials) only to the Bedrock upstream, never to the default; others as before", () => {
    const onlyDefault = new Recorder({ dir: tmpdir(), upstreams: { default: 'https://api.openai.com' } });
    expect(onlyDefault.upstreamFor(bedrockFormat)).toBeUndefined();
    const both = new Recorder({
      dir: tmpdir(),
      upstreams: { bedrock: 'https://bedrock-runtime.us-east-1.amazonaws.com', anthropic: 'https://api.anthropic.com' },
    });
    expect(both.upstreamFor(bedrockFormat)).toBe('https://bedrock-runtime.us-east-1.amazonaws.com');
    // Bedrock's Mantle door is Anthropic's own API (the client's own credentials): Anthropic's upstream, as before.
    expect(both.upstreamFor(anthropicFormat, 'bedrock')).toBe('https://api.anthropic.com');
  });
});
