/**
 * The inbox's ingest thread: every envelope for the local inbox is validated, normalised and
 * grouped here (./prepare-envelope.ts), and stored in one transaction per batch
 * (./inbox-database.server.ts), so that no envelope costs the page loop more than a message.
 * Started by ./ingest-thread.server.ts; built to `.output/server/inbox-ingest-worker.mjs`
 * (build/server-side-files.ts), run from source through tsx in development and tests.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { createDirectoryMapStore } from '../source-maps/directory-map-store.server';
import { firstOfStores } from '../source-maps/map-store';
import {
  type InboxDatabase,
  openInboxDatabase,
  type PreparedEnvelope,
} from './inbox-database.server';
import type { IngestAnswer, IngestRequest, IngestThreadData } from './ingest-protocol';
import { type GroupingMaps, prepareEnvelope } from './prepare-envelope';

/** Envelopes taken into one transaction at most: one commit (one fsync) for all of them. */
const MAX_BATCH = 256;

serveIngest();

/** The thread's one loop: its state lives here, for the life of the thread. */
function serveIngest(): void {
  const port = parentPort;
  if (!port) throw new Error('ingest-worker.ts runs as a worker thread');
  const { databasePath, maxEvents, buildOutput } = workerData as IngestThreadData;
  const database = openInboxDatabase(databasePath, { maxEvents });
  const maps: GroupingMaps | undefined = buildOutput && {
    store: firstOfStores([
      createDirectoryMapStore({ root: buildOutput.clientMapsDir }),
      createDirectoryMapStore({ root: buildOutput.serverDir }),
    ]),
    projectRoot: buildOutput.projectRoot,
    serverOutputDir: buildOutput.serverDir,
  };
  // One batch at a time: what arrives meanwhile waits in the port and joins the next batch.
  let working: Promise<void> = Promise.resolve();
  port.on('message', (first: IngestRequest) => {
    working = working.then(async () => {
      const batch = [first];
      while (batch.length < MAX_BATCH) {
        const next = receiveMessageOnPort(port);
        if (!next) break;
        batch.push(next.message as IngestRequest);
      }
      for (const answer of await ingestBatch(batch, database, maps)) port.postMessage(answer);
    });
  });
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
