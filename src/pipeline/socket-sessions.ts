// The ceiling on sessions open at once across every socket kind (OpenAI realtime, Gemini Live,
// Responses over WebSocket): each session's pump takes a place as it opens and gives it back as it
// ends; a session that finds none refuses itself as its service refuses one too many.

/** Sessions open at once unless `maxSockets` says. */
export const DEFAULT_MAX_SOCKETS = 256;

export class SocketSessions {
  /** Sessions open at once, at most. */
  readonly max: number;
  /** Sessions open now. */
  open = 0;
  /** Sessions refused for the ceiling since the start. */
  refused = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** A place for a new session; false (counted) when every place is taken. */
  take(): boolean {
    if (this.open >= this.max) {
      this.refused++;
      return false;
    }
    this.open++;
    return true;
  }

  give(): void {
    this.open--;
  }
}
