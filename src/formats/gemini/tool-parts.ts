// Built-in tools in Gemini's shapes: code run as executableCode and codeExecutionResult parts; a
// computer action as a call of the computer-use model's predefined functions (a 1000 × 1000 grid);
// searches, file searches, map searches and URL reads as the candidate's groundingMetadata (chunks,
// supports over the text's UTF-8 byte offsets, the search entry point) and urlContextMetadata.
import { searchCitations, type Block, type Choice } from '../../core/reply.ts';
import { citedSources } from '../../core/synthesize/builtin.ts';
import type { ComputerAction } from '../../types/builtin.ts';

type Part = Record<string, unknown>;

/** The parts of a server tool block: code and what it printed (the other tools answer in metadata). */
export function serverParts(block: Extract<Block, { type: 'server_tool' }>): Part[] {
  const u = block.use;
  if (u.kind !== 'code_execution') return [];
  const output = u.returnCode === 0 ? u.stdout : `${u.stdout}${u.stderr}`;
  return [
    { executableCode: { language: 'PYTHON', code: u.code } },
    { codeExecutionResult: { outcome: u.returnCode === 0 ? 'OUTCOME_OK' : 'OUTCOME_FAILED', output } },
  ];
}

/** A computer action as the predefined function the computer-use model calls. */
export function computerCall(block: Extract<Block, { type: 'tool_call' }>): { name: string; args: Record<string, unknown> } {
  const input = JSON.parse(block.arguments || '{}') as { action?: ComputerAction };
  const a = input.action ?? { type: 'screenshot' };
  const grid = (n: number) => Math.max(0, Math.min(999, Math.round(n)));
  switch (a.type) {
    case 'click':
    case 'double_click':
      return { name: 'click_at', args: { x: grid(a.x), y: grid(a.y) } };
    case 'move':
      return { name: 'hover_at', args: { x: grid(a.x), y: grid(a.y) } };
    case 'drag': {
      const [from, to] = [a.path[0] ?? { x: 0, y: 0 }, a.path.at(-1) ?? { x: 0, y: 0 }];
      return { name: 'drag_and_drop', args: { x: grid(from.x), y: grid(from.y), destination_x: grid(to.x), destination_y: grid(to.y) } };
    }
    case 'scroll':
      return {
        name: 'scroll_at',
        args: {
          x: grid(a.x),
          y: grid(a.y),
          direction: a.scrollY < 0 ? 'up' : a.scrollY > 0 ? 'down' : a.scrollX < 0 ? 'left' : 'right',
          magnitude: 800,
        },
      };
    case 'type':
      return { name: 'type_text_at', args: { x: 500, y: 500, text: a.text, press_enter: false, clear_before_typing: true } };
    case 'keypress':
      return { name: 'key_combination', args: { keys: a.keys.join('+') } };
    case 'wait':
      return { name: 'wait_5_seconds', args: {} };
    default:
      // The session starts by opening the browser; its screenshot comes back with the function's response.
      return { name: 'open_web_browser', args: {} };
  }
}

const utf8 = (s: string) => new TextEncoder().encode(s).length;
const host = (url: string) => /^https?:\/\/([^/?#]+)/.exec(url)?.[1] ?? url;

/** The search entry point Google asks apps to show: the queries as chips. */
function entryPoint(queries: string[]): string {
  const chips = queries
    .map(
      (q) =>
        `<a class="chip" href="https://www.google.com/search?q=${encodeURIComponent(q)}">${q.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)}</a>`,
    )
    .join('');
  return `<style>.container{display:flex;flex-wrap:wrap}.chip{display:inline-block;border:1px solid #ddd;border-radius:16px;margin:4px;padding:5px 16px;color:#5e5e5e;text-decoration:none}</style><div class="container">${chips}</div>`;
}

/** The candidate's grounding: what the searches found and which spans of its text each supports, and the URLs read. */
export function grounding(choice: Choice): Record<string, unknown> {
  const blocks = choice.blocks;
  const sources = citedSources(blocks);
  const out: Record<string, unknown> = {};
  const searches = blocks.flatMap((b) =>
    b.type === 'server_tool' && b.use.kind === 'web_search' && b.use.action.type === 'search' ? [b.use.action.query] : [],
  );
  const fetched = blocks.flatMap((b) => (b.type === 'server_tool' && b.use.kind === 'web_fetch' ? [b.use.url] : []));
  if (sources.length) {
    const chunkOf = (s: (typeof sources)[number]) => {
      const b = blocks[s.block];
      if (b.type === 'server_tool' && b.use.kind === 'file_search')
        return { retrievedContext: { title: s.title, text: s.text, uri: s.url } };
      if (b.type === 'server_tool' && b.use.kind === 'maps') {
        const place = b.use.places[s.result];
        return { maps: { title: place.title, uri: place.uri, placeId: place.placeId, text: place.text } };
      }
      return { web: { uri: s.url, title: s.title, domain: host(s.url) } };
    };
    // Supports are over the text parts, by UTF-8 byte offsets into the candidate's text.
    let base = 0;
    const supports: unknown[] = [];
    for (const b of blocks) {
      if (b.type !== 'text') continue;
      for (const c of searchCitations(b.citations)) {
        const chunk = sources.findIndex((s) => s.block === c.block && s.result === c.result);
        if (chunk < 0) continue;
        const startIndex = base + utf8(b.text.slice(0, c.start));
        supports.push({
          segment: { startIndex, endIndex: startIndex + utf8(b.text.slice(c.start, c.end)), text: b.text.slice(c.start, c.end) },
          groundingChunkIndices: [chunk],
          confidenceScores: [0.9],
        });
      }
      base += utf8(b.text);
    }
    out.groundingMetadata = {
      ...(searches.length ? { webSearchQueries: searches, searchEntryPoint: { renderedContent: entryPoint(searches) } } : {}),
      groundingChunks: sources.map(chunkOf),
      groundingSupports: supports,
    };
  }
  if (fetched.length)
    out.urlContextMetadata = {
      urlMetadata: fetched.map((url) => ({ retrievedUrl: url, urlRetrievalStatus: 'URL_RETRIEVAL_STATUS_SUCCESS' })),
    };
  return out;
}
