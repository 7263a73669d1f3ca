/**
 * A nitro plugin: on shutdown (nitro's `close` hook, after the server has drained its
 * requests) the inbox's writer thread finishes the writes it still has, such as an envelope
 * whose sender hung up before its answer, instead of being cut off mid-write with the process.
 * Bounded, so a hanging disk cannot hold the shutdown.
 */
import { theInboxWriter } from './inbox-writer.server';

/** Well past a batch of durable writes; well inside an orchestrator's SIGTERM-to-SIGKILL. */
export const SETTLE_WRITES_ON_CLOSE_MS = 5_000;

interface NitroAppLike {
  hooks: { hook(name: 'close', run: () => Promise<void>): void };
}

export default function settleWritesOnClose(nitroApp: NitroAppLike): void {
  nitroApp.hooks.hook('close', async () => {
    const writer = theInboxWriter();
    const pending = writer.pending();
    if (pending === 0) return;
    console.log(`[inbox] finishing ${pending} write(s) before exit`);
    if ((await writer.settled(SETTLE_WRITES_ON_CLOSE_MS)) === 'timed-out') {
      console.warn(
        `[inbox] shutting down with ${writer.pending()} write(s) unfinished after ${SETTLE_WRITES_ON_CLOSE_MS} ms`,
      );
    }
  });
}
