/**
 * The alert sender: claims due deliveries from the outbox (./alert-outbox.server.ts), sends each
 * to its channel, and settles it as ./alert-policy.ts says (sent, tried again later, or failed).
 * It runs in every worker's ingest thread (decision 1201): the claims keep them from sending a
 * row twice, and whichever is alive sends, so alerts go on while any worker runs and resume
 * after a restart from what the database holds.
 */
import type { AlertChannel, Delivery } from './alert';
import type { AlertOutbox, ClaimedDelivery } from './alert-outbox.server';
import { failingChannels, nextStep } from './alert-policy';

/** The longest the sender sleeps: a test alert raised by a page is picked up within it. */
export const POLL_MS = 1_000;
/** Deliveries claimed at once, sent side by side. */
const BATCH = 8;
/** How often done alerts are pruned. */
const PRUNE_EVERY_MS = 60_000;

export interface AlertSenderOptions {
  outbox: AlertOutbox;
  channels: readonly AlertChannel[];
  now?: () => number;
  /** The channels that keep failing changed (for /health): their names and last reasons. */
  onFailing(failing: string[]): void;
  /** A line for the operator: a delivery that failed for good or was given up. */
  log(kind: 'alert failed' | 'alert sender', line: string): void;
}

export interface AlertSender {
  /** Looks for due deliveries now (an alert was just raised). */
  wake(): void;
  stop(): void;
}

export function startAlertSender(options: AlertSenderOptions): AlertSender {
  const { outbox, channels } = options;
  const now = options.now ?? Date.now;
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let prunedAt = 0;
  let failing = '';

  const deliver = async (claimed: ClaimedDelivery) => {
    const channel = channels.find((candidate) => candidate.name === claimed.channel);
    let delivery: Delivery;
    if (!channel) {
      delivery = { outcome: 'failed', reason: 'the channel is no longer configured' };
    } else {
      try {
        delivery = await channel.send(claimed.alert, stopping.signal);
      } catch {
        // A channel answers with a Delivery; one that throws is a bug, tried again later.
        delivery = { outcome: 'retry', reason: 'the channel failed unexpectedly' };
      }
    }
    if (stopping.signal.aborted) return; // its lease ends, and another sender takes it
    const step = nextStep(delivery, claimed.attempts, claimed.raisedAt, now());
    if (!outbox.settle(claimed, step, now())) return;
    if (step.state === 'failed') {
      options.log(
        'alert failed',
        `[alerts] a ${claimed.alert.kind} alert to ${claimed.channel} failed: ${step.reason}`,
      );
    }
  };

  const tick = async () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        // A read first: a claim is a write, and takes the lock the ingest writes under.
        const due = outbox.nextDue();
        if (due === undefined || due > now()) break;
        const claimed = outbox.claim(now(), BATCH);
        await Promise.all(claimed.map(deliver));
        if (claimed.length === BATCH) again = true;
      } while (again && !stopping.signal.aborted);
      if (now() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = now();
        outbox.prune(prunedAt);
      }
      const current = failingChannels(outbox.latestAttempts(), now());
      if (current.join('\n') !== failing) {
        failing = current.join('\n');
        options.onFailing(current);
      }
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      options.log(
        'alert sender',
        `[alerts] the sender could not read the outbox: ${error instanceof Error ? error.message : String(error)}${typeof code === 'string' ? ` (${code})` : ''}`,
      );
    } finally {
      running = false;
      schedule();
    }
  };

  const schedule = () => {
    if (stopping.signal.aborted) return;
    if (timer) clearTimeout(timer);
    let wait = POLL_MS;
    try {
      const due = outbox.nextDue();
      if (due !== undefined) wait = Math.max(0, Math.min(POLL_MS, due - now()));
    } catch {
      // Read again at the next turn.
    }
    timer = setTimeout(() => void tick(), again ? 0 : wait);
  };

  schedule();
  return {
    wake() {
      if (running) {
        again = true;
        return;
      }
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void tick(), 0);
    },
    stop() {
      stopping.abort();
      if (timer) clearTimeout(timer);
    },
  };
}
