/**
 * A nitro plugin: on shutdown (nitro's `close` hook, after the server has drained its
 * requests) the inbox's ingest thread finishes the reports it still has, such as an envelope
 * whose sender hung up before its answer, instead of being cut off with the process. Bounded,
 * so a hanging disk cannot hold the shutdown.
 */
import { serverConfig } from '#app/server/env.server';
import { localInbox } from './local-inbox.server';

/** Well past a batch of durable writes; well inside an orchestrator's SIGTERM-to-SIGKILL. */
export const SETTLE_INGEST_ON_CLOSE_MS = 5_000;

interface NitroAppLike {
  hooks: { hook(name: 'close', run: () => Promise<void>): void };
}

export default function settleIngestOnClose(nitroApp: NitroAppLike): void {
  nitroApp.hooks.hook('close', async () => {
    if (serverConfig().monitoring.kind !== 'local-inbox') return;
    const thread = localInbox().ingestThread();
    const pending = thread.pending();
    if (pending === 0) return;
    console.log(`[inbox] finishing ${pending} report(s) before exit`);
    if ((await thread.settled(SETTLE_INGEST_ON_CLOSE_MS)) === 'timed-out') {
      console.warn(
        `[inbox] shutting down with ${thread.pending()} report(s) unstored after ${SETTLE_INGEST_ON_CLOSE_MS} ms`,
      );
    }
  });
}
