/**
 * A nitro plugin: on shutdown (SIGTERM or SIGINT, nitro's `close` hook) the server waits a
 * little for its failure reports still on their way, so the events of its last moments are
 * not lost with the process. Bounded, so a hanging Sentry cannot hold the shutdown.
 */
import { flushServerReports, reportsInFlight } from './sentry-client.server';

/** Well inside the usual 10–30 s between an orchestrator's SIGTERM and its SIGKILL. */
export const FLUSH_ON_CLOSE_MS = 2_000;

interface NitroAppLike {
  hooks: { hook(name: 'close', run: () => Promise<void>): void };
}

export default function flushOnClose(nitroApp: NitroAppLike): void {
  nitroApp.hooks.hook('close', async () => {
    const pending = reportsInFlight();
    if (pending > 0) {
      console.log(
        `[monitoring] delivering ${pending} failure report(s) before exit (up to ${FLUSH_ON_CLOSE_MS} ms)`,
      );
    }
    const outcome = await flushServerReports(FLUSH_ON_CLOSE_MS);
    if (outcome === 'timed-out') {
      console.warn(
        `[monitoring] shutting down with failure reports not yet delivered (waited ${FLUSH_ON_CLOSE_MS} ms)`,
      );
    }
  });
}
