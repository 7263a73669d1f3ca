/**
 * The inbox's ingest thread: every envelope for the local inbox is validated, normalised and
 * grouped here (./prepare-envelope.ts), and stored in one transaction per batch
 * (./inbox-database.server.ts), so that no envelope costs the page loop more than a message.
 * Started by ./ingest-thread.server.ts; built beside the built server entry as BUILT_WORKER_FILE
 * (build/server-side-files.ts), run from source through tsx in development and tests.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { type AlertSender, alertChannels, startAlertSender } from '../alerts/alert-delivery.server';
import { alertOutboxOptionsOf } from '../alerts/alert-policy';
import { createDirectoryMapStore, firstOfStores } from '../source-maps/map-store.server';
import {
  type InboxDatabase,
  openInboxDatabase,
  type PreparedEnvelope,
} from './inbox-database.server';
import type {
  AlertThreadSettings,
  IngestAnswer,
  IngestNotice,
  IngestRequest,
  IngestThreadData,
  UpkeepRequest,
} from './ingest-protocol';
import { type GroupingMaps, prepareEnvelope } from './prepare-envelope';

/** Envelopes taken into one transaction at most: one commit (one fsync) for all of them. */
const MAX_BATCH = 256;
/**
 * Envelope bytes taken into one transaction (at least one envelope): what one commit writes to
 * the WAL stays well inside the WAL's share of MONITORING_INBOX_MAX_MB (./store-cap.ts).
 */
const MAX_BATCH_BYTES = 512 * 1024;
/** Free pages given back per transaction after a clear (4 MiB of 4 KiB pages). */
const RECLAIM_PAGES = 1024;

serveIngest();

/** The thread's one loop: its state lives here, for the life of the thread. */
function serveIngest(): void {
  const port = parentPort;
  if (!port) throw new Error('ingest-worker.ts runs as a worker thread');
  const { databasePath, maxEvents, maxMb, buildOutput, alerts } = workerData as IngestThreadData;
  const notify = (notice: IngestNotice) => port.postMessage(notice);
  const { database, sender } = openWithAlerts(databasePath, { maxEvents, maxMb }, alerts, notify);
  const maps: GroupingMaps | undefined = buildOutput && {
    store: firstOfStores([
      createDirectoryMapStore({
        root: buildOutput.clientMapsDir,
        chunksRoot: buildOutput.publicDir,
      }),
      createDirectoryMapStore({ root: buildOutput.serverDir }),
    ]),
    projectRoot: buildOutput.projectRoot,
    serverOutputDir: buildOutput.serverDir,
  };
  // One batch at a time: what arrives meanwhile waits in the port and joins the next batch.
  let working: Promise<void> = Promise.resolve();
  // Upkeep runs one short transaction per turn of this queue, so reports that arrive meanwhile
  // wait for one step at most, never for the whole clear.
  const upkeepStep = inboxUpkeep(database);
  let upkeepQueued = false;
  const upkeep = () => {
    if (upkeepQueued) return;
    upkeepQueued = true;
    working = working.then(() => {
      upkeepQueued = false;
      if (upkeepStep()) upkeep();
      else notify({ kind: 'upkeep-done' });
    });
  };
  const ingest = (first: IngestRequest) => {
    working = working.then(async () => {
      const batch = [first];
      let bytes = first.bytes.byteLength;
      while (batch.length < MAX_BATCH && bytes < MAX_BATCH_BYTES) {
        const next = receiveMessageOnPort(port);
        if (!next) break;
        // An upkeep request among the reports: noted, the batch goes on.
        if (isUpkeepRequest(next.message)) {
          upkeep();
          continue;
        }
        batch.push(next.message as IngestRequest);
        bytes += (next.message as IngestRequest).bytes.byteLength;
      }
      for (const answer of await ingestBatch(batch, database, maps)) port.postMessage(answer);
      if (database.alerts.takeRaised()) sender?.wake();
      const evicted = database.takeEvictedIssues();
      if (evicted > 0) notify({ kind: 'evicted', issues: evicted });
    });
  };
  port.on('message', (message: IngestRequest | UpkeepRequest) => {
    if (isUpkeepRequest(message)) upkeep();
    else ingest(message);
  });
  // A clear or deletes that a stopped thread (or process) left unfinished go on.
  upkeep();
}

/**
 * The database, with the alert outbox when channels are configured, and this thread's alert
 * sender (decision 1201), which tells the main thread what /health and the log need.
 */
function openWithAlerts(
  path: string,
  limits: { maxEvents: number; maxMb: number },
  settings: AlertThreadSettings | undefined,
  notify: (notice: IngestNotice) => void,
): { database: InboxDatabase; sender?: AlertSender } {
  const channels = settings ? alertChannels(settings) : [];
  if (!settings || channels.length === 0) return { database: openInboxDatabase(path, limits) };
  const database = openInboxDatabase(path, {
    ...limits,
    alerts: alertOutboxOptionsOf(settings),
  });
  const sender = startAlertSender({
    outbox: database.alerts,
    channels,
    onFailing: (failing) => notify({ kind: 'alert-channels', failing }),
    log: (logKind, line) => notify({ kind: 'alert-log', logKind, line }),
  });
  return { database, sender };
}

function isUpkeepRequest(message: unknown): message is UpkeepRequest {
  return (message as { kind?: unknown } | null)?.kind === 'upkeep';
}

/**
 * What the inbox has to do besides storing, a step at a time: a batch of the issues deleted
 * (their events a batch at a time), a batch of the clear under way; once they are done, free
 * pages given back to the file system a transaction at a time, and the WAL checkpointed and
 * truncated, so that the file shrinks on disk. A step says whether there is more to do.
 */
function inboxUpkeep(database: InboxDatabase): () => boolean {
  let reclaiming = false;
  return () => {
    if (database.deleteStep()) {
      reclaiming = true;
      return true;
    }
    const step = database.clearStep(Date.now());
    if (step && !step.done) return true;
    if (step?.done) reclaiming = true;
    if (!reclaiming) return false;
    if (database.reclaimSpace(RECLAIM_PAGES) > 0) return true;
    reclaiming = false;
    database.checkpoint();
    return false;
  };
}

async function ingestBatch(
  batch: IngestRequest[],
  database: InboxDatabase,
  maps: GroupingMaps | undefined,
): Promise<IngestAnswer[]> {
  const answers: IngestAnswer[] = [];
  const accepted: Array<{ request: IngestRequest; prepared: PreparedEnvelope; eventId?: string }> =
    [];
  for (const request of batch) {
    try {
      const result = await prepareEnvelope(request.bytes, request.receivedAt, maps);
      if (result.ok) accepted.push({ request, prepared: result.prepared, eventId: result.eventId });
      else
        answers.push({
          id: request.id,
          ok: false,
          code: 'rejected',
          message: result.reason,
          status: result.status,
        });
    } catch (error) {
      answers.push({ id: request.id, ok: false, code: 'failed', message: messageOf(error) });
    }
  }
  if (accepted.length === 0) return answers;
  try {
    // One arrival time per transaction: the batch arrived within a few milliseconds.
    database.ingest(
      accepted.map((entry) => entry.prepared),
      Math.max(...accepted.map((entry) => entry.request.receivedAt)),
    );
    for (const { request, eventId } of accepted) {
      answers.push({ id: request.id, ok: true, ...(eventId ? { eventId } : {}) });
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = typeof code === 'string' ? `${messageOf(error)} (${code})` : messageOf(error);
    for (const { request } of accepted) {
      answers.push({ id: request.id, ok: false, code: 'failed', message });
    }
  }
  return answers;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
