/**
 * Watches the server monitors of a MongoClient for a heartbeat that never ends. The driver (mongodb 7.9) can
 * leave one pending forever when a server shuts down: its monitor writes the next `hello` to a socket Node
 * has already destroyed but whose close the driver has not seen yet, and that write waits for a 'drain'
 * that never comes (no 'error' either, and the socket timeout went with the socket). The monitor never
 * checks again, the server stays Unknown, and every operation fails server selection until the process
 * restarts, however long the server has been back. Only a new client gets out of it.
 */
import type {
  MongoClient,
  ServerHeartbeatFailedEvent,
  ServerHeartbeatStartedEvent,
  ServerHeartbeatSucceededEvent,
} from 'mongodb';

export interface HeartbeatWatchOptions {
  /** The client's connect timeout: a polled heartbeat takes at most two (a new connection, then `hello`). */
  connectTimeoutMs: number;
  /** The client's heartbeat period: an awaited (streaming) heartbeat may wait this long for news as well. */
  heartbeatFrequencyMs: number;
  /** Called once when a heartbeat has run past every bound the driver sets it. */
  onStuck: (server: string, pendingMs: number) => void;
}

/** Slack beyond the driver's own bounds before a heartbeat counts as stuck. */
const SLACK_MS = 1_000;

export class HeartbeatWatch {
  private readonly pending = new Map<string, { since: number; limitMs: number }>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;

  constructor(client: MongoClient, options: HeartbeatWatchOptions) {
    const polledLimit = 2 * options.connectTimeoutMs + SLACK_MS;
    client.on('serverHeartbeatStarted', (event: ServerHeartbeatStartedEvent) => {
      if (this.pending.has(event.connectionId)) return;
      const limitMs = polledLimit + (event.awaited ? options.heartbeatFrequencyMs : 0);
      this.pending.set(event.connectionId, { since: Date.now(), limitMs });
    });
    const ended = (event: ServerHeartbeatSucceededEvent | ServerHeartbeatFailedEvent): void => {
      this.pending.delete(event.connectionId);
    };
    client.on('serverHeartbeatSucceeded', ended);
    client.on('serverHeartbeatFailed', ended);
    this.timer = setInterval(
      () => {
        const now = Date.now();
        for (const [server, { since, limitMs }] of this.pending) {
          if (now - since <= limitMs) continue;
          this.stop();
          options.onStuck(server, now - since);
          return;
        }
      },
      Math.min(1_000, polledLimit / 4),
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.pending.clear();
  }
}
