/**
 * How the inbox database stays within MONITORING_INBOX_MAX_MB on disk, WAL included (decision
 * 1000). Pure: the database module (./inbox-database.server.ts) reads its page counts and does
 * what these functions say. A module of its own, though only the database applies it: the
 * environment's schema reads its bounds (MONITORING_INBOX_MAX_MB), and must not load the
 * database to do so.
 *
 * - A quarter of the cap is for the write-ahead log: SQLite checkpoints it when it holds a quarter
 *   of that (`wal_autocheckpoint`) and truncates it back to that after a checkpoint
 *   (`journal_size_limit`); the ingest thread keeps each transaction small (a batch of at most
 *   MAX_BATCH_BYTES of envelopes), so the log does not outgrow its quarter.
 * - The rest is for the data. Past 95% of it in use, the oldest issues are evicted (with their
 *   events, hashes, hours, tags and releases) down to 90%, so eviction runs in bursts, not on
 *   every report. The freed pages are reused before the file grows, so the file stays within
 *   95% of the data's share; they go back to the file system after a clear (incremental vacuum).
 */

export const PAGE_SIZE = 4096;
/** A small server's disk: room for tens of thousands of issues. */
export const DEFAULT_INBOX_MAX_MB = 256;
/** Below this the log's quarter cannot hold one batch and its evictions. */
export const MIN_INBOX_MAX_MB = 8;
export const MAX_INBOX_MAX_MB = 1024 * 1024;

const MIB = 1024 * 1024;
const WAL_SHARE = 1 / 4;
const EVICT_ABOVE = 0.95;
const EVICT_DOWN_TO = 0.9;
/** Session outcomes remembered (to count a session's crash once) per MiB of cap: about 4% of it. */
const SESSION_OUTCOMES_PER_MB = 128;

export interface StoreCap {
  /** The cap, bytes: the database file and its WAL together. */
  maxBytes: number;
  /** PRAGMA wal_autocheckpoint, in pages. */
  walAutocheckpointPages: number;
  /** PRAGMA journal_size_limit, bytes: what the WAL is truncated back to after a checkpoint. */
  journalSizeLimitBytes: number;
  /** Pages in use past which the oldest issues are evicted. */
  evictAbovePages: number;
  /** Pages in use that eviction brings the data back to. */
  evictDownToPages: number;
  /** Session outcomes kept; the oldest go past it. */
  maxSessionOutcomes: number;
}

export function storeCapOf(maxMb: number, pageSize = PAGE_SIZE): StoreCap {
  const maxBytes = maxMb * MIB;
  const walBytes = Math.floor(maxBytes * WAL_SHARE);
  const dataPages = Math.floor((maxBytes - walBytes) / pageSize);
  return {
    maxBytes,
    walAutocheckpointPages: Math.max(1, Math.floor(walBytes / 4 / pageSize)),
    journalSizeLimitBytes: Math.floor(walBytes / 4),
    evictAbovePages: Math.floor(dataPages * EVICT_ABOVE),
    evictDownToPages: Math.floor(dataPages * EVICT_DOWN_TO),
    maxSessionOutcomes: maxMb * SESSION_OUTCOMES_PER_MB,
  };
}

export interface StorePages {
  /** The file's length in pages. */
  pageCount: number;
  /** Pages on its free list, reused by later writes before the file grows. */
  freePages: number;
}

/** Pages in use that eviction must bring the data back to; undefined while within the cap. */
export function evictionTargetOf(pages: StorePages, cap: StoreCap): number | undefined {
  const used = pages.pageCount - pages.freePages;
  return used > cap.evictAbovePages ? cap.evictDownToPages : undefined;
}
