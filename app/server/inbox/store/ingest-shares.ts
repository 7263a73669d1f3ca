/**
 * The ingest queue shared fairly between clients (docs/decisions/1010-ingest-queue-shared-fairly.md).
 * Envelopes wait here, on the main thread, before they go to the ingest thread; the thread is
 * handed a few at a time, taken from the clients in turn. One queue, first come first served,
 * let 30 addresses each under its own rate fill all 1,024 places: a visitor's report waited
 * behind all of them (p50 7.4 s) or was refused, 48% accepted.
 *
 * - Each client (`clientKeyOf`: an IPv4 address, an IPv6 /64; the server's own reports are one
 *   more) may have `perClient` envelopes waiting; past that its next is refused ('client').
 * - When the queue holds `maxQueued`, a client with fewer waiting than the client with the
 *   most takes the newest of that one's places ("longest queue drop"): the one pushed out is
 *   refused instead. Only a client with as many waiting as anyone is refused ('full').
 * - Clients are served in rounds, one envelope each, so an envelope waits behind at most one of
 *   each other client's, however many those have waiting; a client with nothing waiting joins
 *   the round being served, and in a round, clients with fewer waiting go first.
 * Pure: the caller owns the items, their timers and answers.
 */

export interface IngestShareLimits {
  /** Envelopes waiting at once, all clients together. */
  maxQueued: number;
  /** Envelopes one client may have waiting. */
  perClient: number;
}

export type Offered<T> =
  /** Waiting; `pushedOut` (another client's newest) was taken out to make room: refuse it. */
  | { kind: 'queued'; pushedOut?: T }
  /** The client has `perClient` waiting already. */
  | { kind: 'client' }
  /** Everyone waiting has at most as many as this client would: nothing to push out. */
  | { kind: 'full' };

export interface FairQueue<T> {
  offer(client: string, item: T): Offered<T>;
  /** The next envelope to hand on: of the round being served, the client with fewest waiting's oldest. */
  take(): T | undefined;
  /** Takes out an envelope still waiting (its wait ran out); false when it is not waiting. */
  remove(client: string, item: T): boolean;
  size(): number;
  waitingOf(client: string): number;
}

export function createFairQueue<T>(limits: IngestShareLimits): FairQueue<T> {
  // Start-time fair queuing (Goyal et al., 1996) with every envelope costing one: an envelope's
  // tag is the round it belongs to, its client's previous one's plus one, never behind the round
  // being served (`round`); the smallest tag goes first. A client that had nothing waiting joins
  // the current round, and within a round the client with fewer waiting goes first: a visitor's
  // one report waits behind a round's worth of envelopes at most, usually none.
  const lines = new Map<string, Line<T>>();
  let round = 0;
  let size = 0;
  let arrivals = 0;

  const emptied = (client: string, line: Line<T>) => {
    if (line.waiting.length === 0) lines.delete(client);
  };

  /** The client with the most waiting, the earliest to arrive among equals. */
  const longest = (): [string, Line<T>] | undefined => {
    let best: [string, Line<T>] | undefined;
    for (const entry of lines) {
      if (!best || entry[1].waiting.length > best[1].waiting.length) best = entry;
    }
    return best;
  };

  /** Whether `a`'s next envelope goes before `b`'s. */
  const before = (a: Line<T>, b: Line<T>): boolean => {
    const [x, y] = [a.waiting[0] as Tagged<T>, b.waiting[0] as Tagged<T>];
    if (x.tag !== y.tag) return x.tag < y.tag;
    if (a.waiting.length !== b.waiting.length) return a.waiting.length < b.waiting.length;
    return x.arrival < y.arrival;
  };

  return {
    offer(client, item) {
      const line = lines.get(client);
      const waiting = line?.waiting.length ?? 0;
      if (waiting >= limits.perClient) return { kind: 'client' };
      let pushedOut: T | undefined;
      if (size >= limits.maxQueued) {
        const most = longest();
        // Only from a client that would still have more waiting than this one.
        if (!most || most[1].waiting.length <= waiting + 1) return { kind: 'full' };
        const newest = most[1].waiting.pop() as Tagged<T>;
        most[1].next = newest.tag;
        pushedOut = newest.item;
        size--;
        emptied(most[0], most[1]);
      }
      const own = lines.get(client) ?? { waiting: [], next: round };
      lines.set(client, own);
      const tag = Math.max(round, own.next);
      own.next = tag + 1;
      own.waiting.push({ item, tag, arrival: arrivals++ });
      size++;
      return pushedOut === undefined ? { kind: 'queued' } : { kind: 'queued', pushedOut };
    },
    take() {
      let first: [string, Line<T>] | undefined;
      for (const entry of lines) if (!first || before(entry[1], first[1])) first = entry;
      if (!first) return undefined;
      const [client, line] = first;
      const taken = line.waiting.shift() as Tagged<T>;
      round = taken.tag;
      size--;
      emptied(client, line);
      return taken.item;
    },
    remove(client, item) {
      const line = lines.get(client);
      const at = line?.waiting.findIndex((tagged) => tagged.item === item) ?? -1;
      if (!line || at === -1) return false;
      line.waiting.splice(at, 1);
      size--;
      emptied(client, line);
      return true;
    },
    size: () => size,
    waitingOf: (client) => lines.get(client)?.waiting.length ?? 0,
  };
}

interface Tagged<T> {
  item: T;
  /** The round it belongs to. */
  tag: number;
  /** Arrival order, the last tie-break. */
  arrival: number;
}

interface Line<T> {
  /** Oldest first; tags rise by one. */
  waiting: Tagged<T>[];
  /** The tag its next envelope gets, unless the round being served is past it. */
  next: number;
}
