// blockUnhandled()'s public types (unhandled.ts keeps the code).

export interface BlockUnhandledOptions {
  /**
   * Requests to let through to the network anyway. Default: none.
   * @example blockUnhandled({ allow: (url) => url.host === location.host }) // a page's own server (its HMR socket too)
   */
  allow?: (url: URL) => boolean;
  /**
   * Called with each blocked request (method and URL, credentials in its query masked) instead of
   * printing it with console.error.
   * @example blockUnhandled({ onBlocked: (request) => blocked.push(request) }) // 'POST https://api.openai.com/v2/chat/completions'
   */
  onBlocked?: (request: string) => void;
}

/**
 * msw's `listen()` / `start()` options for a request no handler takes, under the name each major
 * reads: msw 3 `onUnhandledFrame`, msw 2 `onUnhandledRequest` (each ignores the other).
 */
export interface UnhandledOptions {
  /**
   * msw 2's callback: it gets the request, and throws to refuse it.
   * @example server.listen(blockUnhandled()) // msw 2 calls onUnhandledRequest(request, print)
   */
  onUnhandledRequest: (request: Request) => void;
  /**
   * msw 3's callback: it gets the network frame (an HTTP request or a WebSocket connection), and throws to refuse it.
   * @example server.listen(blockUnhandled()) // msw 3 calls onUnhandledFrame({ frame, defaults })
   */
  onUnhandledFrame: (args: { frame: unknown }) => void;
}
