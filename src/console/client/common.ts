// What every page's script shares. Runs in the browser: values reach the page only as text nodes.

export function $<T extends Element = HTMLElement>(selector: string, root: ParentNode = document): T {
  const found = root.querySelector<T>(selector);
  if (!found) throw new Error(`missing element ${selector}`);
  return found;
}

/** The data the server put in the page (#page-data). */
export function pageData<T>(): T {
  return JSON.parse(document.getElementById('page-data')?.textContent ?? '{}') as T;
}

/** Says something to screen readers (and leaves it in the hidden live region). */
export function announce(text: string): void {
  const region = document.getElementById('announce');
  if (region) region.textContent = text;
}

type Child = Node | string | number | null | undefined | false;

/** An element with attributes and children; strings become text nodes, never markup. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'object' ? child : String(child));
  }
  return node;
}

async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Not a secure context (a LAN address), or no permission: the old way.
    const area = el('textarea', { readonly: true, class: 'visually-hidden' });
    area.value = text;
    document.body.append(area);
    area.select();
    document.execCommand('copy');
    area.remove();
  }
}

/** Buttons with `data-copy` (the text) or `data-copy-from` (an element id whose value or text to copy). */
export function wireCopyButtons(root: ParentNode = document): void {
  root.addEventListener('click', async (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button[data-copy], button[data-copy-from]');
    if (!button) return;
    const from = button.dataset.copyFrom ? document.getElementById(button.dataset.copyFrom) : null;
    const text =
      button.dataset.copy ??
      (from instanceof HTMLInputElement || from instanceof HTMLTextAreaElement ? from.value : (from?.textContent ?? ''));
    await copyText(text);
    const label = button.textContent;
    button.textContent = 'Copied';
    announce('Copied to the clipboard');
    setTimeout(() => {
      if (button.textContent === 'Copied') button.textContent = label;
    }, 1500);
  });
}

/** A request to the control plane: every one goes through here. Writes always send JSON (the control plane refuses form posts). */
export function adminFetch(
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const method = init.method ?? 'GET';
  return fetch(`/__admin${path}`, {
    method,
    headers: { ...(method === 'GET' ? {} : { 'content-type': 'application/json' }), ...init.headers },
    body: init.body === undefined ? (method === 'GET' ? undefined : '{}') : JSON.stringify(init.body),
  });
}

/** A control-plane call's JSON answer; a failure throws with the control plane's message. */
export async function admin<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await adminFetch(path, init);
  const body = (await res.json().catch(() => ({}))) as T & { error?: unknown };
  if (!res.ok) throw new Error(errorMessage(body, res));
  return body;
}

/** The message of an error body in any of the three vendors' shapes (or the control plane's). */
export function errorMessage(body: unknown, res: { status: number; statusText: string }): string {
  const b = body as { error?: { message?: string } | string; message?: string } | undefined;
  const message = typeof b?.error === 'string' ? b.error : (b?.error?.message ?? b?.message);
  return `${res.status}: ${message || res.statusText || 'error'}`;
}

interface SseEvent {
  event: string;
  data: string;
}

/** Calls `onChunk` with each chunk of `body` as it arrives, until it ends or `signal` aborts. */
async function eachChunk(body: ReadableStream<Uint8Array>, onChunk: (chunk: Uint8Array) => void, signal?: AbortSignal): Promise<void> {
  const reader = body.getReader();
  signal?.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    onChunk(value);
  }
}

/** Reads a server-sent-event body, calling `onEvent` for each event as it arrives. */
export async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: SseEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  const flush = (block: string) => {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) data.push(line.slice(line[5] === ' ' ? 6 : 5));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
    if (data.length) onEvent({ event, data: data.join('\n') });
  };
  await eachChunk(
    body,
    (value) => {
      buffer += decoder.decode(value, { stream: true });
      // Keep a trailing CR: its LF may come in the next chunk.
      const cut = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      const text = buffer.slice(0, cut).replace(/\r\n?/g, '\n');
      const blocks = text.split('\n\n');
      buffer = blocks.pop()! + buffer.slice(cut);
      for (const block of blocks) flush(block);
    },
    signal,
  );
  if (buffer.trim()) flush(buffer.replace(/\r\n?/g, '\n'));
}

export function formatJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * Reads an AWS event-stream body (Bedrock's streams), calling `onEvent` for each frame as it arrives:
 * its `:event-type` (an exception frame as `error`) and its payload as text. The frames' CRCs are the
 * transport's business; a frame is taken by its lengths.
 */
export async function readEventStream(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: SseEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = new Uint8Array(0);
  await eachChunk(
    body,
    (value) => {
      const joined = new Uint8Array(buffer.length + value.length);
      joined.set(buffer);
      joined.set(value, buffer.length);
      buffer = joined;
      // A frame: total length, headers length, prelude CRC, headers, payload, message CRC.
      while (buffer.length >= 12) {
        const view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
        const total = view.getUint32(0);
        // The smallest frame is its prelude and its CRC: anything less would never be consumed.
        if (total < 16) throw new Error(`malformed event-stream frame: ${total} bytes long`);
        if (buffer.length < total) break;
        const headersEnd = 12 + view.getUint32(4);
        const headers: Record<string, string> = {};
        for (let at = 12; at < headersEnd; ) {
          const nameLength = view.getUint8(at);
          const name = decoder.decode(buffer.subarray(at + 1, at + 1 + nameLength));
          at += 1 + nameLength;
          const type = view.getUint8(at++);
          // Bedrock's headers are strings (type 7): a 2-byte length, then the text. Other types end the reading.
          if (type !== 7) break;
          const length = view.getUint16(at);
          headers[name] = decoder.decode(buffer.subarray(at + 2, at + 2 + length));
          at += 2 + length;
        }
        const data = decoder.decode(buffer.subarray(headersEnd, total - 4));
        onEvent({ event: headers[':message-type'] === 'event' ? (headers[':event-type'] ?? 'message') : 'error', data });
        buffer = buffer.slice(total);
      }
    },
    signal,
  );
}
