// The inspector's script: follows the journal's live feed (fetch-read SSE, reconnecting), renders the
// rows that pass the filters, and loads one entry's bodies when it is opened.
import { $, admin, adminFetch, el, formatJson, readEvents } from './common.ts';
import { readStreamEvent, textApiOf, type TextApi } from './stream.ts';

interface Summary {
  seq: number;
  requestId: string;
  method: string;
  path: string;
  format?: string;
  /** The dialect it came by (a cloud's or a router's paths), if not the vendor's own. */
  dialect?: string;
  model?: string;
  fixture?: string;
  nearMiss?: { id: string; name?: string; conditions: { field: string; expected: string; actual: string; ok: boolean }[] };
  status: number;
  fault?: string;
  /** USD at the gateway's price table, for a priced reply. */
  costUsd?: number;
  stream: boolean;
  outcome: string;
  eventsSent: number;
  startedAt?: number;
  durationMs?: number;
  /** The prompt's last text, shortened (the feed's own field). */
  preview?: string;
  /** The test it was sent for (x-mock-test-id), if any. */
  test?: string;
}
interface Entry extends Summary {
  headers: Record<string, string>;
  body?: unknown;
  /** A batch's creation: each request's outcome (the first ones), and how many more. */
  batch?: {
    requests: { custom_id: string; status: string; model?: string; fixture?: string; nearMiss?: { id: string; name?: string } }[];
    more: number;
  };
  response?: { headers: Record<string, string>; body?: string; truncated?: boolean; binaryBytes?: number };
}

const MAX_ROWS = 1000;
const entries = new Map<number, Summary>();
let selected: number | undefined;
const rows = $('#rows');
const live = $('#live');
const pause = $<HTMLInputElement>('#pause');
const value = (id: string) => $<HTMLInputElement | HTMLSelectElement>(`#${id}`).value;

const pending = (e: Summary) => e.durationMs === undefined;

/** The most of one body the page lays out (request bodies may be megabytes; the JSON route has all of it). */
const SHOWN_CHARS = 200_000;
const clip = (text: string, seq: number) =>
  text.length > SHOWN_CHARS
    ? `${text.slice(0, SHOWN_CHARS)}\n… ${text.length - SHOWN_CHARS} more characters: GET /__admin/requests/${seq} has them all.`
    : text;

/** A stream's progress: its events and how it ended (a stream fault ends it, though the status was 200). */
const streamState = (e: Summary) => `${e.eventsSent} events, ${e.fault && e.outcome === 'completed' ? `then ${e.fault}` : e.outcome}`;

function statusClass(e: Summary): string {
  if (pending(e)) return 'warn';
  if (e.status === 0 || e.fault || e.outcome === 'aborted') return 'bad';
  return e.status < 400 ? 'ok' : 'bad';
}

function passes(e: Summary): boolean {
  const status = value('f-status');
  if (status === 'pending' && !pending(e)) return false;
  if (status === 'failed' && !(e.status === 0 || e.fault || e.outcome === 'aborted')) return false;
  if (/^\d$/.test(status) && String(e.status)[0] !== status) return false;
  const format = value('f-format');
  if (format && e.format !== format) return false;
  const fixture = value('f-fixture');
  if (fixture === 'matched' && !e.fixture) return false;
  if (fixture === 'unmatched' && e.fixture) return false;
  if (fixture === 'near' && !e.nearMiss) return false;
  // A test id shown exactly or in part (test ids made by the vitest helper end in a random tail).
  const test = value('f-test').trim();
  if (test && !e.test?.includes(test)) return false;
  const text = value('f-text').trim().toLowerCase();
  if (text && ![e.path, e.model, e.fixture, e.nearMiss?.name, e.preview].some((s) => s?.toLowerCase().includes(text))) return false;
  return true;
}

/** A cost in USD to a millionth of a dollar (a request's is usually a fraction of a cent). */
const usd = (n: number) => `$${n.toFixed(6)}`;

const time = (ms?: number) => (ms === undefined ? '' : new Date(ms).toLocaleTimeString([], { hour12: false }));

function row(e: Summary): HTMLTableRowElement {
  const status = pending(e) ? 'pending' : e.status === 0 ? 'no response' : String(e.status);
  const fixture = e.fixture ?? (e.nearMiss ? `near miss: ${e.nearMiss.name ?? e.nearMiss.id}` : '');
  // A request refused before its stream began has no stream to describe.
  const stream = e.stream && e.status > 0 && e.status < 400 ? streamState(e) : '';
  return el(
    'tr',
    { class: e.seq === selected ? 'selected' : undefined, 'data-seq': String(e.seq) },
    el(
      'td',
      {},
      el('button', { type: 'button', class: 'linkish', 'data-open': String(e.seq), 'aria-label': `Open request ${e.seq}` }, String(e.seq)),
    ),
    el('td', {}, el('span', { class: `pill ${statusClass(e)}` }, status)),
    el(
      'td',
      {},
      el('span', { class: 'mono' }, `${e.method} ${e.path}`),
      el(
        'div',
        { class: 'muted' },
        [e.dialect ? `${e.format} via ${e.dialect}` : e.format, e.model, e.test && `test: ${e.test}`].filter(Boolean).join(' · '),
      ),
      e.preview && el('div', { class: 'preview' }, e.preview),
      fixture && el('div', { class: 'show-narrow muted' }, `fixture: ${fixture}`),
    ),
    el('td', { class: 'hide-narrow' }, fixture),
    el('td', { class: 'hide-narrow' }, time(e.startedAt)),
    el('td', { class: 'hide-narrow' }, e.durationMs === undefined ? '' : `${e.durationMs} ms`),
    el('td', { class: 'hide-narrow' }, e.costUsd === undefined ? '' : usd(e.costUsd)),
    el('td', { class: 'hide-narrow' }, stream),
    el('td', { class: 'hide-narrow' }, e.fault ?? ''),
  );
}

let scheduled = false;
function render(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    const all = [...entries.values()].sort((a, b) => b.seq - a.seq);
    const shown = all.filter(passes);
    const cost = shown.reduce((sum, e) => sum + (e.costUsd ?? 0), 0);
    $('#count').textContent = `${shown.length} of ${all.length} shown · ${usd(cost)} in all`;
    if (!shown.length) {
      rows.replaceChildren(
        el('tr', {}, el('td', { colspan: '9', class: 'muted' }, all.length ? 'No request passes the filters.' : 'No requests yet.')),
      );
      return;
    }
    rows.replaceChildren(...shown.map(row));
  });
}

function kv(facts: [string, string | undefined][]): Node[] {
  return facts.filter(([, v]) => v !== undefined && v !== '').flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, v)]);
}

async function open(seq: number): Promise<void> {
  if (selected !== seq) $('#detail').hidden = true;
  selected = seq;
  render();
  const detail = $('#detail');
  let e: Entry;
  try {
    e = await admin<Entry>(`/requests/${seq}`);
  } catch (error) {
    detail.hidden = false;
    $('#detail-facts').replaceChildren(el('dt', {}, 'Error'), el('dd', {}, String((error as Error).message)));
    return;
  }
  $('#detail-heading').textContent = `Request #${e.seq}: ${e.method} ${e.path}`;
  $('#detail-facts').replaceChildren(
    ...kv([
      ['Request id', e.requestId],
      ['Format', e.format],
      ['Dialect', e.dialect],
      ['Model', e.model],
      ['Status', pending(e) ? 'pending' : String(e.status)],
      ['Fixture', e.fixture],
      ['Test', e.headers['x-mock-test-id']],
      ['Fault', e.fault],
      ['Stream', e.stream ? streamState(e) : undefined],
      ['Received', e.startedAt === undefined ? undefined : new Date(e.startedAt).toLocaleString()],
      ['Duration', e.durationMs === undefined ? undefined : `${e.durationMs} ms`],
      ['Cost', e.costUsd === undefined ? undefined : usd(e.costUsd)],
    ]),
  );
  const near = $('#near-miss');
  near.replaceChildren();
  if (e.nearMiss) {
    near.append(
      el('h3', {}, `Nearest fixture: ${e.nearMiss.name ?? e.nearMiss.id}`),
      el(
        'ul',
        {},
        ...e.nearMiss.conditions.map((c) => el('li', {}, `${c.ok ? '✓' : '✗'} ${c.field}: expected ${c.expected}, got ${c.actual}`)),
      ),
    );
  }
  showBatch(e);
  $('#req-headers').textContent = JSON.stringify(e.headers, null, 2);
  $('#req-body').textContent = e.body === undefined ? '(no body)' : clip(JSON.stringify(e.body, null, 2), e.seq);
  const r = e.response;
  $('#res-headers').textContent = r ? JSON.stringify(r.headers, null, 2) : '';
  const notes: string[] = [];
  if (!r) notes.push(e.fault ? `No response: the connection was broken (${e.fault}).` : 'No response yet.');
  if (r && e.fault) notes.push(`Fault inflicted: ${e.fault}${e.stream ? `, after ${e.eventsSent} events` : ''}.`);
  if (r?.binaryBytes !== undefined)
    notes.push(`Binary body, ${r.binaryBytes} bytes (${r.headers['content-type'] ?? 'unknown type'}); not kept.`);
  if (r?.truncated) notes.push('Cut at 64 KiB: the journal keeps that much of each response.');
  if (e.stream && e.outcome === 'streaming') notes.push('Still streaming: the events below grow as they are written.');
  $('#res-note').textContent = notes.join(' ');
  $('#res-body').textContent = r?.body === undefined ? '' : clip(e.stream ? r.body : formatJson(r.body), e.seq);
  await showAssembled(e);
  detail.hidden = false;
}

/** A batch's requests, one row each: its custom_id, outcome, model and what answered it. */
function showBatch(e: Entry): void {
  const box = $('#batch-lines');
  box.replaceChildren();
  if (!e.batch) return;
  const { requests, more } = e.batch;
  box.append(
    el('h3', {}, `Batch: ${requests.length + more} requests${more ? ` (the first ${requests.length} shown)` : ''}`),
    el(
      'div',
      { class: 'tablewrap' },
      el(
        'table',
        {},
        el('thead', {}, el('tr', {}, ...['custom_id', 'Outcome', 'Model', 'Fixture'].map((h) => el('th', { scope: 'col' }, h)))),
        el(
          'tbody',
          {},
          ...requests.map((r) =>
            el(
              'tr',
              {},
              el('td', {}, el('code', {}, r.custom_id)),
              el('td', {}, el('span', { class: `pill ${r.status === 'succeeded' ? 'ok' : 'bad'}` }, r.status)),
              el('td', {}, r.model ?? ''),
              el('td', {}, r.fixture ?? (r.nearMiss ? `near miss: ${r.nearMiss.name ?? r.nearMiss.id}` : '')),
            ),
          ),
        ),
      ),
    ),
  );
}

interface Assembled {
  text: string;
  tools: { name: string; args: string }[];
  errors: string[];
  events: number;
}

/** A journaled stream put back together: its text, its tool calls (name and arguments), and any error sent inside it. */
async function assemble(api: TextApi, body: string): Promise<Assembled> {
  const out: Assembled = { text: '', tools: [], errors: [], events: 0 };
  const calls = new Map<number, { name: string; args: string }>();
  const sink = {
    text: (piece: string) => void (out.text += piece),
    usage: () => {},
    tool(index: number, name: string | undefined, args: string) {
      // A name starts a call; pieces of arguments go to the call at that position.
      if (name !== undefined) calls.set(index, out.tools[out.tools.push({ name, args: '' }) - 1]);
      const call = calls.get(index);
      if (call) call.args += args;
    },
    error: (message: string) => void out.errors.push(message),
  };
  const read = (event: string, data: string) => {
    out.events++;
    try {
      readStreamEvent(api, event, data, sink);
    } catch {
      // An event cut by the journal's limit, or not JSON: the raw events below still show it.
    }
  };
  const trimmed = body.trimStart();
  if (trimmed.startsWith('[')) {
    // Gemini without alt=sse: one JSON array, its elements the chunks (cut short when the stream was).
    let chunks: unknown[] = [];
    try {
      chunks = JSON.parse(trimmed);
    } catch {
      try {
        chunks = JSON.parse(`${trimmed.replace(/,\s*$/, '')}]`);
      } catch {
        // Cut mid-element: nothing to assemble.
      }
    }
    for (const chunk of chunks) read('message', JSON.stringify(chunk));
  } else await readEvents(new Response(body).body!, (ev) => read(ev.event, ev.data));
  return out;
}

/** Above a stream's raw events: what it said, assembled, and the events themselves folded away. */
async function showAssembled(e: Entry): Promise<void> {
  const api = e.stream ? textApiOf(e.path, e.format) : undefined;
  const body = e.response?.body;
  const box = $('#assembled');
  const raw = $<HTMLDetailsElement>('#res-raw');
  if (!api || body === undefined) {
    box.hidden = true;
    raw.open = true;
    $('#res-raw-summary').textContent = e.stream ? 'Events' : 'Body';
    return;
  }
  const a = await assemble(api, body);
  const cut = e.response?.truncated ? ' (cut with the journal’s copy at 64 KiB)' : '';
  $('#assembled-heading').textContent = a.tools.length && !a.text ? `Tool calls${cut}` : `Assembled text${cut}`;
  $('#res-text').textContent = [a.text || (a.tools.length ? '' : '(no text)'), ...a.errors.map((m) => `Error in the stream: ${m}`)]
    .filter(Boolean)
    .join('\n\n');
  $('#res-text').hidden = !$('#res-text').textContent;
  $('#res-tools').replaceChildren(
    ...a.tools.map((t) => el('li', {}, el('code', {}, t.name), ' ', el('span', { class: 'mono' }, formatJson(t.args)))),
  );
  box.hidden = false;
  // Folded only when first shown: a reader who opened the raw events keeps them open as the stream grows.
  if ($('#res-raw-summary').dataset.seq !== String(e.seq)) raw.open = false;
  $('#res-raw-summary').dataset.seq = String(e.seq);
  $('#res-raw-summary').textContent = `Raw events (${a.events})`;
}

rows.addEventListener('click', (event) => {
  const target = event.target as Element;
  const button = target.closest<HTMLButtonElement>('button[data-open]');
  const tr = target.closest<HTMLTableRowElement>('tr[data-seq]');
  const seq = Number((button ?? tr)?.dataset.open ?? tr?.dataset.seq);
  if (!Number.isInteger(seq)) return;
  void open(seq).then(() => $('#detail').focus());
});

for (const id of ['f-status', 'f-format', 'f-fixture', 'f-test', 'f-text']) $(`#${id}`).addEventListener('input', render);
// A link may name the test to show: /console/requests?test=<id>.
$<HTMLInputElement>('#f-test').value = new URLSearchParams(location.search).get('test') ?? '';

/** Offers the test ids of the requests the page holds in the test filter. */
let offered = '';
function offerTests(): void {
  const ids = [...new Set([...entries.values()].map((e) => e.test).filter((id): id is string => !!id))].sort();
  if (ids.join('\n') === offered) return;
  offered = ids.join('\n');
  $('#f-tests').replaceChildren(...ids.map((id) => el('option', { value: id })));
}
$('#clear').addEventListener('click', async () => {
  if (!confirm('Clear the journal? Every request it holds is deleted, for every client.')) return;
  await admin('/requests', { method: 'DELETE' });
  entries.clear();
  $('#detail').hidden = true;
  render();
});

let held: Summary[] = [];
function take(list: Summary[]): void {
  if (pause.checked) {
    // Held updates are replayed on resume; past the journal's size only the newest matter.
    held.push(...list);
    if (held.length > 4 * MAX_ROWS) held = held.slice(-2 * MAX_ROWS);
    return;
  }
  for (const e of list) entries.set(e.seq, e);
  // The open request moved on (a stream progressed, a delayed reply arrived): show its bodies as they are now.
  if (selected !== undefined && !$('#detail').hidden && list.some((e) => e.seq === selected)) void open(selected);
  // Oldest go first once the page holds as many as the journal can.
  if (entries.size > MAX_ROWS)
    for (const seq of [...entries.keys()].sort((a, b) => a - b).slice(0, entries.size - MAX_ROWS)) entries.delete(seq);
  offerTests();
  render();
}
pause.addEventListener('change', () => {
  if (pause.checked) return;
  const list = held;
  held = [];
  take(list);
});

async function follow(): Promise<void> {
  for (;;) {
    try {
      const res = await adminFetch('/requests/stream', { headers: { accept: 'text/event-stream' } });
      if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
      // The feed starts with everything the journal holds.
      entries.clear();
      live.textContent = 'live';
      live.className = 'pill ok';
      await readEvents(res.body, (event) => {
        if (event.event === 'reset') {
          entries.clear();
          held = [];
          render();
        } else if (event.event === 'entries') take(JSON.parse(event.data) as Summary[]);
      });
    } catch {
      // The server went away or restarted: say so, and try again.
    }
    live.textContent = 'reconnecting…';
    live.className = 'pill warn';
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}
void follow();
