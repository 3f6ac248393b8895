// The canonical reply: ordered content blocks per choice, a finish reason and counted usage.
import { joinedTexts } from './request.ts';
import type { RgbaImage } from './synthesize/image.ts';
import type { FinishReason, Usage } from '../types/reply.ts';
import type { BuiltinKind, FileSearchResult, PlaceResult, SearchResult } from '../types/builtin.ts';
import type { CitableDocument } from '../types/request.ts';
export type { FinishReason, Usage } from '../types/reply.ts';

/** What a web search did: searched, opened a page, or looked for text in one. */
type WebAction =
  | { type: 'search'; query: string }
  | { type: 'open_page'; url: string }
  | { type: 'find_in_page'; url: string; pattern: string };

/** A tool of an MCP server, as its listing gives it. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A built-in tool the service ran within the turn: what the model asked of it and what it gave back. */
export type ServerToolUse =
  | { kind: 'web_search'; action: WebAction; results: SearchResult[] }
  | { kind: 'web_fetch'; url: string; title: string; content: string }
  | { kind: 'file_search'; queries: string[]; results: FileSearchResult[] }
  | { kind: 'code_execution'; code: string; stdout: string; stderr: string; returnCode: number }
  /** A picture (synthesized pixels, or a fixture's file), and the partial pictures drawn on the way when streamed. */
  | { kind: 'image_generation'; prompt: string; pixels?: RgbaImage; file?: Uint8Array; partials: RgbaImage[] }
  | { kind: 'mcp_list'; server: string; tools: McpTool[] }
  /** An MCP tool called (`approvalId`: the id of the approval request the client approved first, as the client gave it). */
  | { kind: 'mcp'; server: string; tool: string; arguments: string; output: string; error?: string; approvalId?: string }
  | { kind: 'tool_search'; query: string; found: string[] }
  | { kind: 'maps'; query: string; places: PlaceResult[] };

/** A span of a text block (UTF-16 offsets, end exclusive) drawn from result `result` of the server tool block at `block`. */
export interface SearchCitation {
  start: number;
  end: number;
  block: number;
  result: number;
}

/** A span of a text block quoted from a document the request gave: its text from `from` to `to` (UTF-16 offsets). */
interface DocumentCitation {
  start: number;
  end: number;
  document: CitableDocument;
  from: number;
  to: number;
}

export type Citation = SearchCitation | DocumentCitation;

/** A text's citations of search results (what formats without document citations show). */
export const searchCitations = (citations: readonly Citation[] = []): SearchCitation[] =>
  citations.filter((c): c is SearchCitation => 'block' in c);

export type Block =
  | { type: 'text'; text: string; citations?: Citation[] }
  /**
   * A call the client runs: a function (arguments: JSON), or a built-in tool of `builtin` kind
   * (arguments: its canonical input as JSON, core/synthesize/builtin.ts; a custom tool's free text).
   */
  | { type: 'tool_call'; id: string; name: string; arguments: string; builtin?: BuiltinKind }
  /** A built-in tool the service ran (`name` is the request's tool). */
  | { type: 'server_tool'; id: string; name: string; use: ServerToolUse }
  | { type: 'thinking'; text: string; signature: string }
  /** 16-bit mono PCM at `sampleRate`, speaking `transcript`. */
  | { type: 'audio'; samples: Int16Array; sampleRate: number; transcript: string }
  /** A picture: synthesized pixels (formats encode them), or a fixture's file as pinned. */
  | { type: 'image'; pixels?: RgbaImage; file?: Uint8Array }
  /** The model declining to answer, in its own words (formats with a refusal field put it there). */
  | { type: 'refusal'; text: string };

export interface Choice {
  index: number;
  blocks: Block[];
  finishReason: FinishReason;
  /** A fixture's vendor finish reason (PinnedReply.vendorFinishReason), for the formats that have their own. */
  vendorFinishReason?: string;
  /** The stop string that ended generation, when finishReason is 'stop_sequence'. */
  stopSequence?: string;
  /** Tokens of outputTokens spent reasoning (shown as a thinking block or hidden), and the signature that vouches for them. */
  reasoning?: { tokens: number; signature: string };
  outputTokens: number;
}

export interface CanonicalReply {
  /** Stable key of this reply: the seed of its ids and of its stream timing. */
  key: number;
  /** Unix seconds, from the gateway's clock. */
  created: number;
  choices: Choice[];
  usage: Usage;
  /** Name of the fixture that produced the reply, if any. */
  fixture?: string;
  /** A safety filter blocked the prompt: nothing was generated (each choice empty, `content_filter`). */
  promptBlocked?: boolean;
}

/** A reply of which nothing was generated (a warm-up): every choice empty, only the prompt counted. */
export function withoutOutput(reply: CanonicalReply): CanonicalReply {
  return {
    ...reply,
    choices: reply.choices.map(({ index }) => ({ index, blocks: [], finishReason: 'stop', outputTokens: 0 })),
    usage: { ...reply.usage, outputTokens: 0, reasoningTokens: 0, serverToolUses: undefined },
  };
}

/** The text of a choice: its text blocks, joined. */
export function choiceText(choice: Choice): string {
  return joinedTexts(choice.blocks);
}
