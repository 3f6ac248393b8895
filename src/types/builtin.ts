// Built-in tools: the tools a vendor defines itself, which its service runs (a web search, a code
// sandbox, an image model, a remote MCP server) or which the client runs in the shape the vendor
// fixed (a shell, a file editor, a computer, a free-form custom tool). The canonical request names
// them by what they do; a fixture pins what their use gave (core/synthesize/builtin.ts does the work).

/** What an editor tool may do to a file. */
type EditOperation = 'view' | 'create' | 'update' | 'insert' | 'delete' | 'rename';

/** What a built-in tool does, vendor-neutral; `type` is the vendor's own name for it (formats render by it). */
export type BuiltinTool =
  /** The service searches the web and cites what it found. */
  | { kind: 'web_search'; type: string; allowedDomains?: string[]; blockedDomains?: string[]; maxUses?: number }
  /** The service reads a web page: a URL the prompt gives, else one made up for the prompt (`citations`: the page may be cited). */
  | { kind: 'web_fetch'; type: string; allowedDomains?: string[]; blockedDomains?: string[]; maxUses?: number; citations?: boolean }
  /** The service searches the client's files (vector stores) and cites passages. */
  /** `filters`: an attribute filter as the API writes it; `scoreThreshold`: ranking_options.score_threshold. */
  | { kind: 'file_search'; type: string; stores: string[]; maxResults?: number; filters?: Record<string, unknown>; scoreThreshold?: number }
  /** The service runs code in a sandbox (the container the client named, if it did). */
  | { kind: 'code_execution'; type: string; container?: string }
  /** The service draws a picture. */
  | {
      kind: 'image_generation';
      type: string;
      width: number;
      height: number;
      format: 'png' | 'jpeg' | 'webp';
      /** 0..100, for jpeg and webp. */
      compression: number;
      transparent: boolean;
      /** Partial images sent while it is drawn (streaming only). */
      partialImages: number;
      /** Output tokens of the picture, by the model's table for its size and quality. */
      tokens: number;
    }
  /**
   * A remote MCP server, never called: its tools are `tools` when the client lists them, else a
   * synthesized pair. A call waits for the client's approval unless `approval` says it need not.
   */
  | { kind: 'mcp'; type: string; server: string; tools?: string[]; approval: 'always' | 'never' | { always?: string[]; never?: string[] } }
  /** The service finds deferred tools (ToolSpec.deferred) before one of them is called. */
  | { kind: 'tool_search'; type: string }
  /** The service looks up places. */
  | { kind: 'maps'; type: string }
  /** The client runs shell commands. */
  | { kind: 'shell'; type: string }
  /** The client edits files (under `root` only, for a memory directory). */
  | { kind: 'editor'; type: string; operations: EditOperation[]; root?: string }
  /** The client acts on a screen of width × height. */
  | { kind: 'computer'; type: string; width: number; height: number }
  /** The client takes free-form text, in the grammar given if any. */
  | { kind: 'custom'; type: string; grammar?: { syntax: 'lark' | 'regex'; definition: string } }
  /** Accepted and shown back, never used (the vendor's tool has no emulated behaviour). */
  | { kind: 'inert'; type: string };

export type BuiltinKind = BuiltinTool['kind'];

/** A web page a search found (a fixture's, or synthesized). */
export interface SearchResult {
  title: string;
  url: string;
  /** What the page says, as cited. */
  snippet: string;
  /** How old the page is, as the vendor words it (e.g. "2 days ago"). */
  pageAge?: string;
}

/** A passage a file search found. */
export interface FileSearchResult {
  fileId: string;
  filename: string;
  text: string;
  /** 0..1, most relevant first. */
  score: number;
  /** The file's attributes in its vector store. */
  attributes?: Record<string, string | number | boolean>;
}

/** A place a maps search found. */
export interface PlaceResult {
  title: string;
  uri: string;
  placeId: string;
  /** What is said of it. */
  text: string;
}

/** An action on a computer screen, in pixels of its display. */
export type ComputerAction =
  | { type: 'screenshot' }
  | { type: 'click'; x: number; y: number; button?: 'left' | 'right' | 'middle' }
  | { type: 'double_click'; x: number; y: number }
  | { type: 'move'; x: number; y: number }
  | { type: 'drag'; path: { x: number; y: number }[] }
  | { type: 'scroll'; x: number; y: number; scrollX: number; scrollY: number }
  | { type: 'type'; text: string }
  | { type: 'keypress'; keys: string[] }
  | { type: 'navigate'; url: string }
  | { type: 'wait' };

/** A file edit: what an editor or memory tool is asked to do. */
export interface FileEdit {
  operation: EditOperation;
  path: string;
  /** update: the text replaced, and what replaces it. */
  oldText?: string;
  newText?: string;
  /** create: the file's text; insert: the text inserted (after line `line`). */
  content?: string;
  line?: number;
  /** rename: the new path. */
  newPath?: string;
}

/**
 * A built-in tool's use a fixture pins, by what the tool does (`tool`); `name` picks the request's
 * tool when it has several of that kind. Everything left out is synthesized. A kind the request
 * offers no tool of is left out of the reply.
 */
export type PinnedBuiltinCall = { name?: string } & (
  | {
      tool: 'web_search';
      query?: string;
      /** What the search did: a search (default), opening a page, or finding text in it. */
      action?: 'search' | 'open_page' | 'find_in_page';
      url?: string;
      pattern?: string;
      results?: (Omit<SearchResult, 'snippet'> & { snippet?: string })[];
    }
  | { tool: 'web_fetch'; url?: string; title?: string; content?: string }
  | { tool: 'file_search'; queries?: string[]; results?: (Partial<FileSearchResult> & { text: string })[] }
  | { tool: 'code_execution'; code?: string; output?: string; error?: string; returnCode?: number }
  | { tool: 'image_generation'; prompt?: string; image?: string }
  | { tool: 'mcp'; server?: string; arguments?: Record<string, unknown> | string; output?: string; error?: string }
  | { tool: 'maps'; query?: string; places?: (Partial<PlaceResult> & { title: string })[] }
  | { tool: 'shell'; commands: string[] }
  | ({ tool: 'editor' } & FileEdit)
  | { tool: 'computer'; action: ComputerAction; safetyChecks?: { code: string; message: string }[] }
  | { tool: 'custom'; input: string }
);

/** A pinned citation: the first occurrence of `text` in the reply cites result `result` (1-based, over every result of the reply's searches, in order). */
export interface PinnedCitation {
  text: string;
  result: number;
}
