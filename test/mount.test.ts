// mount(): a dialect's paths over the existing endpoints, by their ids (pipeline/mount.ts).
import { describe, expect, it } from 'vitest';
import { endpoints } from '../src/gateway.ts';
import { FALLBACK_FORMAT } from '../src/formats/all.ts';
import { mount } from '../src/pipeline/mount.ts';
import { RouteTable } from '../src/pipeline/routes.ts';
import type { Inbound } from '../src/pipeline/exchange.ts';

describe('mount()', () => {
  const dialect = { name: 'cloud', format: FALLBACK_FORMAT, auth: ['bearer'] as const, prefix: '/cloud' };

  it("mounts an endpoint by id under the dialect's prefix or on a path of its own, keeping its handler", () => {
    const [prefixed, own] = mount(endpoints, dialect, [
      { endpoint: 'openai POST /v1/chat/completions' },
      { endpoint: 'gemini POST /v1beta/models/:call', path: '/v9/projects/:project/models/:call' },
    ]);
    expect(prefixed).toMatchObject({
      id: 'cloud POST /cloud/v1/chat/completions',
      path: '/cloud/v1/chat/completions',
      dialect: 'cloud',
      method: 'POST',
    });
    expect(own).toMatchObject({ id: 'cloud POST /v9/projects/:project/models/:call', dialect: 'cloud' });
    expect(own.format).toBe(FALLBACK_FORMAT);
  });

  it('shares a path between points that say which requests they take, each under an id of its own', () => {
    const path = '/v9/models/:call';
    const counting = (inbound: Inbound) => inbound.url.pathname.endsWith(':countTokens');
    const generating = (inbound: Inbound) => !counting(inbound);
    const [generate, count] = mount(endpoints, dialect, [
      { endpoint: 'gemini POST /v1beta/models/:call', path, accepts: generating },
      { endpoint: 'openai POST /v1/embeddings', path, accepts: counting, id: 'cloud POST /v9/models/{model}:countTokens' },
    ]);
    expect(generate).toMatchObject({ id: `cloud POST ${path}`, accepts: generating });
    expect(count).toMatchObject({ id: 'cloud POST /v9/models/{model}:countTokens', accepts: counting });
    const table = new RouteTable([...endpoints, generate, count], FALLBACK_FORMAT);
    const routed = (pathname: string) => {
      const r = table.route({ method: 'POST', url: new URL(`http://x${pathname}`), header: () => undefined } as unknown as Inbound);
      return r && 'spec' in r ? r.spec.id : undefined;
    };
    expect(routed('/v9/models/m:countTokens')).toBe(count.id);
    expect(routed('/v9/models/m:generateContent')).toBe(generate.id);
  });

  it('refuses an id no endpoint has, and a path that lacks a parameter the endpoint reads', () => {
    expect(() => mount(endpoints, dialect, [{ endpoint: 'openai POST /v1/nope' }])).toThrow(
      'mount(cloud): no endpoint "openai POST /v1/nope"',
    );
    expect(() => mount(endpoints, dialect, [{ endpoint: 'gemini POST /v1beta/models/:call', path: '/v9/models/:model' }])).toThrow(
      'mount(cloud): /v9/models/:model lacks :call, which "gemini POST /v1beta/models/:call" reads',
    );
  });
});
