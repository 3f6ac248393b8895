// The ceiling on socket sessions open at once (issue 35), every kind together: realtime, Gemini Live
// and Responses over WebSocket. One more is refused as its service refuses one: realtime and Responses
// with the 429 rate-limit error event then close 1008, Live with close 1011 (RESOURCE_EXHAUSTED); a
// closed session gives its place back. Counted by the gateway; no timing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startServer, type RunningServer } from '../src/server.ts';

const AUTH = { Authorization: 'Bearer sk-test' };
const LIVE = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent?key=sk-test';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ port: 0, maxSockets: 2 });
});
afterAll(() => server.close());

const ws = (path: string, headers = {}) => new WebSocket(`${server.url.replace('http', 'ws')}${path}`, { headers });

/** The first message a socket gets, parsed. */
const first = (socket: WebSocket) =>
  new Promise<{ type: string; status?: number; error?: { type: string; code: string; message: string } }>((resolve) =>
    socket.once('message', (data) => resolve(JSON.parse(String(data)))),
  );
const closing = (socket: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
const opened = (socket: WebSocket) => new Promise((resolve) => socket.once('open', resolve));

describe('the ceiling on socket sessions open at once', () => {
  it('refuses one more of every kind as its service does, and a closed session gives its place back', async () => {
    expect(server.gateway.sockets).toEqual({ open: 0, max: 2, refused: 0 });
    const a = ws('/v1/realtime?model=gpt-realtime', AUTH);
    expect((await first(a)).type).toBe('session.created');
    const b = ws('/v1/responses', AUTH);
    await opened(b);
    await expect.poll(() => server.gateway.sockets.open).toBe(2);

    // Realtime: the rate-limit error event instead of session.created, then close 1008.
    const c = ws('/v1/realtime?model=gpt-realtime', AUTH);
    const cClosed = closing(c);
    const refused = await first(c);
    expect(refused.type).toBe('error');
    expect(refused.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(refused.error!.message).toMatch(/Too many concurrent sessions: 2 are open.*maxSockets/);
    expect(await cClosed).toEqual({ code: 1008, reason: 'rate_limit_exceeded' });

    // Responses over WebSocket: the error event with its 429 status, then close 1008.
    const d = ws('/v1/responses', AUTH);
    const dClosed = closing(d);
    const dRefused = await first(d);
    expect(dRefused).toMatchObject({ type: 'error', status: 429, error: { code: 'rate_limit_exceeded' } });
    expect((await dClosed).code).toBe(1008);

    // Gemini Live: accepted, then closed 1011 with RESOURCE_EXHAUSTED.
    const e = ws(LIVE);
    const eClosed = await closing(e);
    expect(eClosed.code).toBe(1011);
    expect(eClosed.reason).toMatch(/^RESOURCE_EXHAUSTED: 2 sessions are open/);

    expect(server.gateway.sockets).toEqual({ open: 2, max: 2, refused: 3 });

    // A closed session gives its place back: the next one is served.
    a.close();
    await expect.poll(() => server.gateway.sockets.open).toBe(1);
    const f = ws('/v1/realtime?model=gpt-realtime', AUTH);
    expect((await first(f)).type).toBe('session.created');
    expect(server.gateway.sockets).toMatchObject({ open: 2, refused: 3 });
    f.close();
    b.close();
    await expect.poll(() => server.gateway.sockets.open).toBe(0);
  });
});
