// The OpenAI routes whose handlers are heavy and that most users never call: realtime, audio and images
// (~15 modules with speech synthesis, audio encoders and image codecs). The table holds what routing
// needs (method, path, format, auth), so a request gets the same 404, 405, 401 or body-limit answer
// as before; a handler's module is imported on the first request to one of its routes, not with the package.
import { lazyImport } from '../../core/lazy.ts';
import { later } from '../../pipeline/later.ts';
import type { EndpointSpec, Handler } from '../../pipeline/call.ts';
import type { JsonObject } from '../../pipeline/exchange.ts';
import { openaiFormat } from './format.ts';

const realtime = lazyImport('realtime handlers', () => import('./realtime-routes.ts'));
const audio = lazyImport('audio handlers', () => import('./audio.ts'));
const images = lazyImport('image handlers', () => import('./images.ts'));
const imageEdits = lazyImport('image edit handlers', () => import('./image-edits.ts'));
const imageVariations = lazyImport('image variation handlers', () => import('./image-variations.ts'));

const BEARER = ['bearer'] as const;
const post = (path: string, handle: Handler<JsonObject>): EndpointSpec => ({
  method: 'POST',
  path,
  format: openaiFormat,
  auth: BEARER,
  handle,
});

export const realtimeEndpoints: EndpointSpec[] = [
  {
    method: 'GET',
    path: '/v1/realtime',
    format: openaiFormat,
    auth: ['bearer', 'subprotocol'],
    upgrade: true,
    ephemeral: 'realtime',
    handle: later(realtime, (m) => m.realtimeHandlers.upgrade),
  },
  post(
    '/v1/realtime/client_secrets',
    later(realtime, (m) => m.realtimeHandlers.clientSecrets),
  ),
  post(
    '/v1/realtime/sessions',
    later(realtime, (m) => m.realtimeHandlers.sessions),
  ),
];

export const audioEndpoints: EndpointSpec[] = [
  post(
    '/v1/audio/speech',
    later(audio, (m) => m.audioHandlers.speech),
  ),
  post(
    '/v1/audio/transcriptions',
    later(audio, (m) => m.audioHandlers.transcriptions),
  ),
  post(
    '/v1/audio/translations',
    later(audio, (m) => m.audioHandlers.translations),
  ),
];

export const imageEndpoints: EndpointSpec[] = [
  post(
    '/v1/images/generations',
    later(images, (m) => m.imageHandlers.generations),
  ),
  // Public, as the service's own image URLs are: an <img> tag or a plain fetch can load them.
  {
    method: 'GET',
    path: '/v1/images/files/:file',
    format: openaiFormat,
    auth: [],
    handle: later(images, (m) => m.imageHandlers.imageFile),
  },
];

export const imageEditEndpoints: EndpointSpec[] = [
  post(
    '/v1/images/edits',
    later(imageEdits, (m) => m.imageEditHandlers.edits),
  ),
];

export const imageVariationEndpoints: EndpointSpec[] = [
  post(
    '/v1/images/variations',
    later(imageVariations, (m) => m.imageVariationHandlers.variations),
  ),
];

/** Starts loading every media handler (the standalone server does, once listening, so a first request finds them ready). */
export function preloadMediaHandlers(): void {
  for (const module of [realtime, audio, images, imageEdits, imageVariations]) void module.ready()?.catch(() => {});
}
