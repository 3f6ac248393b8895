// The engine under every socket session (OpenAI realtime, Gemini Live, Responses over WebSocket): the client's frames handled in
// order a counted slice per turn of the event loop, held while a response is being prepared, read no
// further while the reader leaves the session's own frames unread (back-pressure), and counted against
// the session's limits; the session's frames counted on the way out, and a response's planned events
// played onto the socket when due. The session translates; this decides when.
import { yieldToLoop } from '../core/slices.ts';
import type { StreamEvent } from './framing.ts';
import type { SocketSink } from './exchange.ts';
import { HIGH_WATER_BYTES, play } from './playback.ts';
import type { SocketSessions } from './socket-sessions.ts';

/** Limits of one session; past one the session hears of it (`overLimit`) and ends itself. */
interface PumpLimits {
  /** Client frames in one session. */
  events: number;
  /** Bytes of client frames in one session. */
  bytes: number;
  /** Bytes of server frames in one session. */
  serverBytes: number;
  /** Client frames held, in order, while a response is prepared (and their bytes). */
  waitingEvents: number;
  waitingBytes: number;
  /** Client frames handled in one turn of the event loop. */
  eventsPerTurn: number;
}

export type PumpLimit = 'events' | 'bytes' | 'serverBytes' | 'waiting';

/** The session the pump runs. */
interface PumpHost {
  /** One client frame, in order of arrival. */
  handle(text: string): void;
  /** `limit` was passed: the session refuses and closes. */
  overLimit(limit: PumpLimit): void;
  /** The reader took nothing for the reader timeout while frames waited for it; the connection is dropped (a 1008 close frame behind what it has not taken). */
  readerGone(): void;
}

/** One planned frame of a response: when it is due, its text (empty: nothing sent). */
export interface PlannedFrame extends StreamEvent {
  data: string;
}

export class SocketPump {
  private readonly sink: SocketSink;
  private readonly limits: PumpLimits;
  private readonly readerTimeoutMs: number;
  private readonly host: PumpHost;
  private events = 0;
  private bytes = 0;
  /** Bytes of server frames sent. */
  private sent = 0;
  private overSent = false;
  /** Client frames received but not handled yet (a burst read at once), in order. */
  private inbox: string[] = [];
  /** Client frames held while a response is prepared, handled in order once it is. */
  private waiting: string[] = [];
  private waitingBytes = 0;
  /** Frames this turn may still handle; the rest wait for the next turn. */
  private turnBudget: number;
  private nextTurnBooked = false;
  /** Handling waits for the reader to take what was sent. */
  private awaitingReader = false;
  private stopped = false;
  /** Frames written as binary (Gemini Live's are; the SDKs read either). */
  private readonly binary: boolean;
  /** The session holds a place under the ceiling on open sessions; false: it must refuse itself (and is stopped). */
  readonly admitted: boolean;
  private readonly sessions: SocketSessions;

  constructor(sink: SocketSink, limits: PumpLimits, readerTimeoutMs: number, host: PumpHost, sessions: SocketSessions, binary = false) {
    this.sink = sink;
    this.sessions = sessions;
    this.admitted = sessions.take();
    this.stopped = !this.admitted;
    this.limits = limits;
    this.readerTimeoutMs = readerTimeoutMs;
    this.host = host;
    this.turnBudget = limits.eventsPerTurn;
    this.binary = binary;
  }

  /** A client frame: counted against the session's limits, then handled in turn. */
  receive(text: string): void {
    if (this.stopped) return;
    this.events++;
    this.bytes += text.length;
    if (this.events > this.limits.events) return this.host.overLimit('events');
    if (this.bytes > this.limits.bytes) return this.host.overLimit('bytes');
    this.inbox.push(text);
    this.pump();
  }

  /** One server frame on the wire, counted against the limit on server bytes. */
  send(text: string): void {
    this.sent += text.length;
    this.sink.send(text, this.binary);
    if (this.sent > this.limits.serverBytes && !this.overSent) {
      this.overSent = true;
      this.host.overLimit('serverBytes');
    }
  }

  /** Holds a client frame while a response is prepared; false (and overLimit) past the held limits. */
  hold(text: string): boolean {
    this.waiting.push(text);
    this.waitingBytes += text.length;
    if (this.waiting.length > this.limits.waitingEvents || this.waitingBytes > this.limits.waitingBytes) {
      this.host.overLimit('waiting');
      return false;
    }
    return true;
  }

  /** The held frames are handled first, in order, then those not handled yet. */
  resume(): void {
    this.inbox.unshift(...this.waiting);
    this.waiting = [];
    this.waitingBytes = 0;
    this.pump();
  }

  /** The session ended: nothing more is handled. */
  stop(): void {
    if (this.admitted && !this.stopped) this.sessions.give();
    this.stopped = true;
    this.inbox = [];
    this.waiting = [];
  }

  /**
   * Handles the inbox in order, at most eventsPerTurn frames a turn: thousands read at once are handled
   * a counted slice at a time with the event loop served in between, so other clients are answered
   * meanwhile. A steady trickle is handled as it comes.
   */
  private pump(): void {
    if (this.nextTurnBooked || this.awaitingReader) return;
    while (this.inbox.length && this.turnBudget > 0 && !this.stopped) {
      // What the reader has not taken is over the high-water mark: no more client frames are read or
      // handled until it drains, so a client that sends and never reads holds its own frames, not ours.
      if (this.sink.buffered() >= HIGH_WATER_BYTES) return this.awaitReader();
      this.turnBudget--;
      this.host.handle(this.inbox.shift()!);
    }
    if (!this.inbox.length || this.stopped) return;
    this.nextTurnBooked = true;
    void yieldToLoop().then(() => {
      this.nextTurnBooked = false;
      this.turnBudget = this.limits.eventsPerTurn;
      this.pump();
    });
  }

  private awaitReader(): void {
    this.awaitingReader = true;
    this.sink.pauseReading(true);
    const limit = this.readerTimeoutMs;
    const idle = limit > 0 ? setTimeout(() => this.dropReader(), limit) : undefined;
    this.sink.whenDrained(() => {
      clearTimeout(idle);
      this.awaitingReader = false;
      if (this.stopped) return;
      this.sink.pauseReading(false);
      this.pump();
    });
  }

  private dropReader(): void {
    if (this.stopped) return;
    this.sink.close(1008, 'reader_timeout');
    this.sink.terminate();
    this.host.readerGone();
  }

  /**
   * Plays a response's frames, each when due, one WebSocket message per frame; past the high-water
   * mark the response waits for the reader. `sent` counts each frame the session sends (its journal);
   * returns `stop`.
   */
  play(
    frames: Iterable<PlannedFrame>,
    hooks: {
      sent: (data: string) => void;
      end?: () => void;
      onProgress?: (sent: number) => void;
      onEnd: (outcome: 'completed' | 'aborted') => void;
    },
  ): () => void {
    return play(
      frames,
      {
        write: (chunk) => {
          for (const { data } of chunk as readonly PlannedFrame[])
            if (data && !this.stopped) {
              hooks.sent(data);
              this.send(data);
            }
          return this.sink.buffered() < HIGH_WATER_BYTES;
        },
        whenDrained: (resume) => this.sink.whenDrained(resume),
        end: () => hooks.end?.(),
        drop: () => this.dropReader(),
      },
      { onProgress: hooks.onProgress, onEnd: hooks.onEnd },
      this.readerTimeoutMs,
    );
  }
}
