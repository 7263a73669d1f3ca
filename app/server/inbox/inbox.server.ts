/**
 * The local error inbox: where envelopes go when no Sentry project is configured.
 * One envelope per file, written to a temp file, synced and renamed into place, so a
 * crash mid-write never leaves a half entry among the complete ones, and concurrent
 * appends never interleave. The newest `limit` entries are kept. Why files and not a log:
 * docs/decisions/0300-inbox-one-file-per-envelope.md.
 *
 * Several module instances may share one directory (each vinxi router bundles its own
 * copy of this module), so nothing here trusts memory over the directory: the summary
 * cache is keyed by file name and refreshed from a directory listing.
 */
import { randomInt } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { serverConfig } from '../env.server';
import { type EnvelopeSummary, summarizeEnvelope } from './inbox-event';
import {
  entryName,
  isEntryName,
  isTempName,
  newestFirst,
  receivedAtOf,
  tempNameFor,
} from './inbox-file-names';

export interface InboxStore {
  /** Stores one envelope (raw bytes) atomically; resolves once it is durable. */
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
  /** Every entry, newest first. Only files not seen before are read and parsed. */
  list(): Promise<InboxEntry[]>;
  /** The raw bytes of one entry, or undefined when there is no such entry. */
  read(id: string): Promise<Uint8Array | undefined>;
  /** Deletes every entry; resolves to how many were deleted. */
  clear(): Promise<number>;
}

export interface InboxOptions {
  /** How many envelopes to keep; older ones are deleted as new ones arrive. */
  limit?: number;
  /** Where problems go (a torn write, an unreadable entry). */
  report?: (message: string) => void;
  /** Temp files older than this are leftovers of a crashed write, not writes in progress. */
  staleTempMs?: number;
}

export const INBOX_LIMIT = 1000;
/** Reads at most this many files at once when filling the cache. */
const READ_CONCURRENCY = 32;

export function openInbox(directory: string, options: InboxOptions = {}): LocalInbox {
  const dir = resolve(directory);
  const limit = options.limit ?? INBOX_LIMIT;
  const report = options.report ?? ((message) => console.warn(`[inbox] ${message}`));
  const staleTempMs = options.staleTempMs ?? 60_000;
  const summaries = new Map<string, EnvelopeSummary>();
  const reported = new Set<string>();
  let sequence = 0;
  let dirReady: Promise<unknown> | undefined;
  let pruning: Promise<void> = Promise.resolve();

  const ensureDir = () => {
    dirReady ??= mkdir(dir, { recursive: true }).catch((error) => {
      dirReady = undefined;
      throw error;
    });
    return dirReady;
  };

  const names = async (): Promise<string[]> => {
    try {
      return await readdir(dir);
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  };

  const prune = () => {
    // One prune at a time: concurrent ones would race to delete the same files.
    pruning = pruning.then(async () => {
      try {
        const entries = newestFirst(await names());
        await Promise.all(entries.slice(limit).map((name) => removeQuietly(join(dir, name))));
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
      reported.add(name);
      report(`skipped ${name}: a write that never finished (the server stopped mid-write)`);
      await removeQuietly(join(dir, name));
    }
  };

  const summaryOf = async (name: string): Promise<EnvelopeSummary | undefined> => {
    const cached = summaries.get(name);
    if (cached) return cached;
    let bytes: Uint8Array;
    try {
      bytes = await readFile(join(dir, name));
    } catch (error) {
      if (isMissing(error)) return undefined; // pruned or cleared meanwhile
      throw error;
    }
    const summary = summarizeEnvelope(bytes, name.replace(/\.envelope$/, ''));
    if (summary.problem && !reported.has(name)) {
      reported.add(name);
      report(`entry ${name} is damaged (${summary.problem}); showing what could be read`);
    }
    summaries.set(name, summary);
    return summary;
  };

  return {
    dir,

    async append(envelope) {
      const name = entryName(Date.now(), sequence++, randomInt(2 ** 32));
      try {
        await ensureDir();
        await writeDurably(dir, name, envelope);
      } catch (error) {
        if (!isMissing(error)) throw error;
        // The directory went away while the server ran (someone cleaned .data): make it again.
        dirReady = undefined;
        await ensureDir();
        await writeDurably(dir, name, envelope);
      }
      await prune();
    },

    async list() {
      const all = await names();
      await reportLeftovers(all);
      const entries = newestFirst(all).slice(0, limit);
      const present = new Set(entries);
      for (const name of summaries.keys()) if (!present.has(name)) summaries.delete(name);
      // Names reported once stay quiet while they exist; gone ones need no memory.
      const existing = new Set(all);
      for (const name of reported) if (!existing.has(name)) reported.delete(name);
      // Only files not seen before are read; the rest come from the cache.
      const unseen = entries.filter((name) => !summaries.has(name));
      for (let start = 0; start < unseen.length; start += READ_CONCURRENCY) {
        await Promise.all(unseen.slice(start, start + READ_CONCURRENCY).map(summaryOf));
      }
      const result: InboxEntry[] = [];
      for (const name of entries) {
        const summary = summaries.get(name);
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
      const entries = (await names()).filter(isEntryName);
      await Promise.all(entries.map((name) => removeQuietly(join(dir, name))));
      summaries.clear();
      return entries.length;
    },
  };
}

let processInbox: LocalInbox | undefined;

/** The process-wide inbox at serverConfig().monitoring.inboxDir (local inbox mode only). */
export function localInbox(): LocalInbox {
  if (processInbox) return processInbox;
  const { monitoring } = serverConfig();
  if (monitoring.kind !== 'local-inbox') {
    throw new Error('The local inbox is only used when SENTRY_DSN is not set');
  }
  processInbox = openInbox(monitoring.inboxDir);
  return processInbox;
}

/** Temp file, fsync, rename into place, fsync the directory: all or nothing. */
async function writeDurably(dir: string, name: string, bytes: Uint8Array): Promise<void> {
  const temp = join(dir, tempNameFor(name));
  const file = await open(temp, 'wx');
  try {
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, join(dir, name));
  } catch (error) {
    // A write that failed (a full disk) is not a crash mid-write: leave no leftover behind.
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes the rename itself durable (the directory entry), not just the file's bytes. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch {
    // Some file systems refuse fsync on a directory; the rename is still atomic there.
  } finally {
    await handle.close();
  }
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
