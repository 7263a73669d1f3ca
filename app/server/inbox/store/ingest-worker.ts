/**
 * The inbox's ingest thread: every envelope for the local inbox is validated, normalised and
 * grouped here (./prepare-envelope.ts), and stored in one transaction per batch
 * (./inbox-database.server.ts), so that no envelope costs the page loop more than a message.
 * Started by ./ingest-thread.server.ts; built to `.output/server/inbox-ingest-worker.mjs`
 * (build/ingest-worker.ts), run from source through tsx in development and tests.
 */
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { openInboxDatabase, type PreparedEnvelope } from './inbox-database.server';
import type { IngestAnswer, IngestRequest, IngestThreadData } from './ingest-protocol';
import { prepareEnvelope } from './prepare-envelope';

/** Envelopes taken into one transaction at most: one commit (one fsync) for all of them. */
const MAX_BATCH = 256;

const port = parentPort;
if (!port) throw new Error('ingest-worker.ts runs as a worker thread');
const { databasePath, maxEvents } = workerData as IngestThreadData;
const database = openInboxDatabase(databasePath, { maxEvents });

port.on('message', (first: IngestRequest) => {
  const batch = [first];
  while (batch.length < MAX_BATCH) {
    const next = receiveMessageOnPort(port);
    if (!next) break;
    batch.push(next.message as IngestRequest);
  }
  for (const answer of ingestBatch(batch)) port.postMessage(answer);
});

function ingestBatch(batch: IngestRequest[]): IngestAnswer[] {
  const answers: IngestAnswer[] = [];
  const accepted: Array<{ request: IngestRequest; prepared: PreparedEnvelope; eventId?: string }> =
    [];
  for (const request of batch) {
    const result = prepareEnvelope(request.bytes, request.receivedAt);
    if (result.ok) accepted.push({ request, prepared: result.prepared, eventId: result.eventId });
    else answers.push({ id: request.id, ok: false, code: 'rejected', message: result.reason });
  }
  if (accepted.length === 0) return answers;
  try {
    // One receivedAt per transaction: the batch arrived within a few milliseconds.
    database.ingest(
      accepted.map((entry) => entry.prepared),
      Math.max(...accepted.map((entry) => entry.request.receivedAt)),
    );
    for (const { request, eventId } of accepted) {
      answers.push({ id: request.id, ok: true, ...(eventId ? { eventId } : {}) });
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    for (const { request } of accepted) {
      answers.push({
        id: request.id,
        ok: false,
        code: 'failed',
        message: typeof code === 'string' ? `${message} (${code})` : message,
      });
    }
  }
  return answers;
}
