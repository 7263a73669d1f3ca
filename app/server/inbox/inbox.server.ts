/**
 * The local error inbox: where envelopes go when no Sentry project is configured.
 * One envelope per file, written to a temp file, synced and renamed into place, so a
 * crash mid-write never leaves a half entry among the complete ones, and concurrent
 * appends never interleave. The newest `limit` entries are kept. Why files and not a log:
 * docs/decisions/0300-inbox-one-file-per-envelope.md. The writing itself is done by the
 * process's writer thread (inbox-writer.server.ts, docs/decisions/0840), so that an append
 * under load costs the event loop one turn, not one per file-system call.
 *
 * Events are bounded before they are stored (normalise-envelope.ts), so no entry can make a
 * page huge. The list comes from an index in memory, one summary per file name: an append adds
 * its own summary (it has the bytes), pruning and clearing remove theirs, so a burst of appends
 * costs the next reader nothing. The index is still checked against a directory listing on each
 * read, because the directory is the truth: another process, or a copy of this module that is
 * not the process-wide one, may write there too. Only the first read after a start reads every
 * file, once, however many readers ask at the same time.
 */
import { randomInt } from 'node:crypto';
import { readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { serverConfig } from '#app/server/env.server';
import { healthSignals } from '#app/server/health/health-signals.server';
import { processShared } from '#app/server/process-shared.server';
import { emptyItemCounts } from './classify-envelope';
import { type EnvelopeSummary, summarizeEnvelope } from './envelope-summary';
import {
  entryName,
  isEntryName,
  isTempName,
  newestFirst,
  receivedAtOf,
  tempNameFor,
} from './inbox-file-names';
import { type InboxWriter, theInboxWriter } from './inbox-writer.server';
import { isInboxBusy } from './inbox-writer-protocol';
import { normaliseEnvelope } from './normalise-envelope';

export interface InboxStore {
  /** Stores one envelope atomically, its events bounded; resolves once it is durable. */
  append(envelope: Uint8Array): Promise<void>;
}

export interface InboxEntry {
  /** The entry's file name: stable, unique, sorts by arrival. */
  id: string;
  receivedAt: Date;
  summary: EnvelopeSummary;
}

export interface LocalInbox extends InboxStore {
  readonly dir: string;
  /** Every entry, newest first. Only files this store has not seen are read and parsed. */
  list(): Promise<InboxEntry[]>;
  /** The raw bytes of one entry, or undefined when there is no such entry. */
  read(id: string): Promise<Uint8Array | undefined>;
  /** Deletes every entry; resolves to how many were deleted. */
  clear(): Promise<number>;
  /**
   * Says through the inbox's report channel that a reader could not show part of an entry
   * (`topic`: what failed), once per entry and topic while the entry exists: a page viewed
   * again and again does not repeat it.
   */
  reportEntry(id: string, topic: string, message: string): void;
}

export interface InboxOptions {
  /** How many envelopes to keep; older ones are deleted as new ones arrive. */
  limit?: number;
  /** Where problems go (a torn write, an unreadable entry). */
  report?: (message: string) => void;
  /** Temp files older than this are leftovers of a crashed write, not writes in progress. */
  staleTempMs?: number;
  /** Who writes the files: the process's writer thread unless a test brings its own. */
  writer?: InboxWriter;
}

export const INBOX_LIMIT = 1000;
/** Reads at most this many files at once when filling the cache. */
const READ_CONCURRENCY = 32;

export function openInbox(directory: string, options: InboxOptions = {}): LocalInbox {
  const dir = resolve(directory);
  const limit = options.limit ?? INBOX_LIMIT;
  const report = options.report ?? ((message) => console.warn(`[inbox] ${message}`));
  const staleTempMs = options.staleTempMs ?? 60_000;
  const writer = options.writer ?? theInboxWriter();
  /** The index: a summary per entry, and the `version` at which this store added it. */
  const index = new Map<string, { summary: EnvelopeSummary; version: number }>();
  /** Counts this store's own additions, so a listing older than one does not undo it. */
  let version = 0;
  const reported = new Set<string>();
  let sequence = 0;
  let pruning: Promise<void> = Promise.resolve();
  let scanning: Promise<void> | undefined;
  let nextScan: Promise<void> | undefined;

  const names = async (): Promise<string[]> => {
    try {
      return await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  };

  const reportOnce = (name: string, message: string) => {
    if (reported.has(name)) return;
    reported.add(name);
    report(message);
  };

  const prune = () => {
    // One prune at a time: concurrent ones would race to delete the same files.
    pruning = pruning.then(async () => {
      try {
        const entries = newestFirst(await names());
        await Promise.all(
          entries.slice(limit).map(async (name) => {
            await removeQuietly(join(dir, name));
            index.delete(name);
          }),
        );
      } catch (error) {
        // The envelope is stored already; a failed trim is retried on the next append.
        report(`could not trim the inbox to ${limit} envelopes: ${(error as Error).message}`);
      }
    });
    return pruning;
  };

  const reportLeftovers = async (all: string[]) => {
    for (const name of all.filter(isTempName)) {
      if (reported.has(name)) continue;
      const info = await stat(join(dir, name)).catch(() => undefined);
      if (!info || Date.now() - info.mtimeMs < staleTempMs) continue;
      reportOnce(
        name,
        `skipped ${name}: a write that never finished (the server stopped mid-write)`,
      );
      await removeQuietly(join(dir, name));
    }
  };

  const summarize = (name: string, bytes: Uint8Array): EnvelopeSummary => {
    const summary = summaryOf(name, bytes);
    reportDamage(name, summary);
    return summary;
  };

  const reportDamage = (name: string, summary: EnvelopeSummary) => {
    if (summary.problem) {
      reportOnce(name, `entry ${name} is damaged (${summary.problem}); showing what could be read`);
    }
  };

  /** Never loses an envelope over the bounds: the detail view bounds what it reads again. */
  const boundedOrAsGiven = (envelope: Uint8Array): Uint8Array => {
    try {
      return normaliseEnvelope(envelope);
    } catch (error) {
      report(`an envelope was stored unbounded: ${(error as Error).message}`);
      return envelope;
    }
  };

  /** The bytes of an entry this store has not seen, or undefined when it cannot be read. */
  const readEntry = async (name: string): Promise<Uint8Array | undefined> => {
    try {
      return await readFile(join(dir, name));
    } catch (error) {
      // Missing: pruned or cleared meanwhile. Otherwise it stays out of the index, so it is
      // tried again on the next read.
      if (!isMissing(error)) {
        const reason = (error as Error).message;
        reportOnce(name, `entry ${name} could not be read (${reason}); not listed`);
      }
      return undefined;
    }
  };

  /** Brings the index in line with the directory. */
  const scan = async (): Promise<void> => {
    const listedAt = version;
    const all = await names();
    await reportLeftovers(all);
    const entries = newestFirst(all).slice(0, limit);
    const present = new Set(entries);
    for (const [name, entry] of index) {
      // An entry this store added after the listing was taken is not missing, just new.
      if (!present.has(name) && entry.version <= listedAt) index.delete(name);
    }
    // Names reported once stay quiet while they exist; gone ones need no memory.
    const existing = new Set(all);
    for (const key of reported) if (!existing.has(entryOfKey(key))) reported.delete(key);
    const unseen = entries.filter((name) => !index.has(name));
    for (let start = 0; start < unseen.length; start += READ_CONCURRENCY) {
      const batch = unseen.slice(start, start + READ_CONCURRENCY);
      const contents = await Promise.all(batch.map(readEntry));
      for (const [offset, name] of batch.entries()) {
        const bytes = contents[offset];
        if (!bytes || index.has(name)) continue;
        // One parse per turn of the event loop: a batch of 1 MiB entries parsed back to back
        // stalls it long enough to make the server shed load (and answer pages with 503).
        await nextTurn();
        index.set(name, { summary: summarize(name, bytes), version: listedAt });
      }
    }
  };

  /**
   * One scan at a time, shared: readers that arrive during a scan share the one after it
   * (which sees what the running one may have missed), so a crowd of readers after a start
   * reads each file once.
   */
  const refresh = (): Promise<void> => {
    if (!scanning) {
      scanning = scan().finally(() => {
        scanning = undefined;
      });
      return scanning;
    }
    nextScan ??= scanning
      .catch(() => {})
      .then(() => {
        nextScan = undefined;
        return refresh();
      });
    return nextScan;
  };

  return {
    dir,

    async append(envelope) {
      const bytes = boundedOrAsGiven(envelope);
      const name = entryName(Date.now(), sequence++, randomInt(2 ** 32));
      // Summarised first: the bytes may move to the writer thread.
      const summary = summaryOf(name, bytes);
      // The writer takes the bytes it is given; the caller's own stay the caller's.
      const owned = bytes === envelope ? new Uint8Array(envelope) : bytes;
      // Temp file, fsync, rename, directory fsync, all or nothing; the directory is made
      // again if it went away while the server ran (someone cleaned .data).
      await writer.write({ dir, temp: join(dir, tempNameFor(name)), path: join(dir, name) }, owned);
      reportDamage(name, summary);
      version += 1;
      index.set(name, { summary, version });
      // Stored and durable: the sender's answer need not wait for the trim (a directory scan,
      // one more turn of a busy event loop). Readers wait for it, so they never see more.
      void prune();
    },

    async list() {
      await pruning;
      await refresh();
      const result: InboxEntry[] = [];
      for (const name of newestFirst([...index.keys()]).slice(0, limit)) {
        const summary = index.get(name)?.summary;
        const receivedAt = receivedAtOf(name);
        if (summary && receivedAt) result.push({ id: name, receivedAt, summary });
      }
      return result;
    },

    async read(id) {
      // Only names the store itself makes: never a path from outside.
      if (!isEntryName(id)) return undefined;
      try {
        return await readFile(join(dir, id));
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async clear() {
      await pruning;
      const entries = (await names()).filter(isEntryName);
      await Promise.all(entries.map((name) => removeQuietly(join(dir, name))));
      // Only what was deleted: an append that finished meanwhile is still there.
      for (const name of entries) index.delete(name);
      return entries.length;
    },

    reportEntry(id, topic, message) {
      if (isEntryName(id)) reportOnce(`${id}${TOPIC}${topic}`, message);
    },
  };
}

/** Keys of `reported` are file names, or an entry name and a topic joined by this. */
const TOPIC = '#';

function entryOfKey(key: string): string {
  const at = key.indexOf(TOPIC);
  return at === -1 ? key : key.slice(0, at);
}

/**
 * The process-wide inbox at serverConfig().monitoring.inboxDir (local inbox mode only). One
 * per process, not per module copy: the tunnel and the /errors pages are in different vinxi
 * routers, and the pages' index must hear of the tunnel's appends.
 */
export function localInbox(): LocalInbox {
  const { monitoring } = serverConfig();
  if (monitoring.kind !== 'local-inbox') {
    throw new Error('The local inbox is only used when SENTRY_DSN is not set');
  }
  const { inboxDir } = monitoring;
  return processShared(`inbox-files:${resolve(inboxDir)}`, () => openInbox(inboxDir));
}

/**
 * Stores one report (from the tunnel or the server's own client) in the local inbox, and tells
 * /health whether storing works: a store that fails is `degraded` until a write succeeds. Busy
 * is not failing: it is answered 503 and retried.
 */
export async function storeReport(envelope: Uint8Array): Promise<void> {
  const signals = healthSignals();
  try {
    await localInbox().append(envelope);
    signals.clear('reports-not-stored');
  } catch (error) {
    if (!isInboxBusy(error)) signals.note('reports-not-stored', errorCodeOf(error));
    throw error;
  }
}

/** A failure's code (EACCES, ENOSPC) for /health: short, and no server path in it. */
function errorCodeOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string'
    ? `the local inbox failed to write (${code})`
    : 'the local inbox failed to write';
}

/** An entry's summary; one that cannot be summarised must not take the list down with it. */
function summaryOf(name: string, bytes: Uint8Array): EnvelopeSummary {
  try {
    return summarizeEnvelope(bytes, name.replace(/\.envelope$/, ''));
  } catch (error) {
    return { itemCounts: emptyItemCounts(), problem: (error as Error).message };
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

async function removeQuietly(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (!isMissing(error)) throw error;
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException)?.code === 'ENOENT';
}
