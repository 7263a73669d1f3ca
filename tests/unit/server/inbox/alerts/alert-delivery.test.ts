/**
 * The sender over a real outbox: it sends what is due, settles it as the policy says, gives up
 * a day after the alert was raised with one line, and tells /health which channels fail.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AlertChannel,
  type AlertSender,
  type Delivery,
  SEND_DEADLINE_MS,
  startAlertSender,
} from '#app/server/inbox/alerts/alert-delivery.server';
import type { Alert } from '#app/server/inbox/alerts/alert-message';
import { CLAIM_LEASE_MS } from '#app/server/inbox/alerts/alert-outbox.server';
import { GIVE_UP_AFTER_MS } from '#app/server/inbox/alerts/alert-policy';
import {
  type InboxDatabase,
  openInboxDatabase,
} from '#app/server/inbox/store/inbox-database.server';
import { seededEvent } from '#tests/support/seed-inbox';
import { until } from '#tests/support/wait-for';

const open: Array<InboxDatabase | AlertSender> = [];
afterEach(() => {
  for (const item of open.splice(0)) 'stop' in item ? item.stop() : item.close();
});

/** A channel that answers with `answer` and keeps what it was sent. */
function channel(answer: () => Delivery) {
  const sent: Alert[] = [];
  const it: AlertChannel = {
    name: 'webhook test.example',
    send: async (alert) => {
      sent.push(alert);
      return answer();
    },
  };
  return { it, sent };
}

function setUp(
  answer: () => Delivery,
  clock: { now: number },
  options: { send?: AlertChannel['send']; sendDeadlineMs?: number } = {},
) {
  const path = join(mkdtempSync(join(tmpdir(), 'alert-sender-')), 'inbox.sqlite');
  const db = openInboxDatabase(path, {
    maxEvents: 100,
    alerts: { channels: ['webhook test.example'] },
  });
  open.push(db);
  const hook = channel(answer);
  if (options.send) hook.it.send = options.send;
  const lines: string[] = [];
  const failing: string[][] = [];
  const sender = startAlertSender({
    outbox: db.alerts,
    channels: [hook.it],
    now: () => clock.now,
    sendDeadlineMs: options.sendDeadlineMs,
    onFailing: (names) => failing.push(names),
    log: (_kind, line) => lines.push(line),
  });
  open.push(sender);
  return { db, hook, lines, failing, sender };
}

describe('the alert sender', () => {
  it('sends a due alert once and settles it sent', async () => {
    const clock = { now: Date.now() };
    const { db, hook, sender } = setUp(() => ({ outcome: 'sent' }), clock);
    db.ingest([seededEvent({ type: 'TypeError', message: 'sent once', at: clock.now })], clock.now);
    sender.wake();
    await until(
      'the alert to be stored as sent',
      () => db.alerts.history(1, 10)[0]?.state === 'sent',
    );
    expect(hook.sent.map((alert) => alert.kind)).toEqual(['new']);
  });

  it('gives up a day after the alert was raised, with one line, and says the channel fails', async () => {
    const clock = { now: Date.now() };
    const { db, hook, lines, failing, sender } = setUp(
      () => ({ outcome: 'retry', reason: 'answered 503' }),
      clock,
    );
    db.ingest([seededEvent({ type: 'TypeError', message: 'never', at: clock.now })], clock.now);
    sender.wake();
    await until(
      'the alert to be stored as refused with 503',
      () => db.alerts.history(1, 10)[0]?.reason === 'answered 503',
    );
    expect(failing.at(-1)).toEqual(['webhook test.example (answered 503)']);
    expect(lines).toEqual([]);
    // A day later, its next attempt is its last.
    clock.now += GIVE_UP_AFTER_MS;
    sender.wake();
    await until(
      'the alert to be stored as failed',
      () => db.alerts.history(1, 10)[0]?.state === 'failed',
    );
    expect(hook.sent).toHaveLength(2);
    expect(lines).toEqual([
      '[alerts] a new alert to webhook test.example failed: gave up after a day: answered 503',
    ]);
  });
  it('stops a send at its deadline, before its claim lapses and another sender could send it too', async () => {
    // A send still going when the lease ends is claimed again and sent twice.
    expect(SEND_DEADLINE_MS).toBeLessThanOrEqual(CLAIM_LEASE_MS / 2);
    const clock = { now: Date.now() };
    const stopped: boolean[] = [];
    // An SMTP server answering slowly but steadily: the send ends only when it is stopped.
    const endless: AlertChannel['send'] = (_alert, signal) =>
      new Promise((settle) =>
        signal.addEventListener(
          'abort',
          () => {
            stopped.push(true);
            settle({ outcome: 'retry', reason: 'stopped' });
          },
          { once: true },
        ),
      );
    const { db, sender, failing } = setUp(() => ({ outcome: 'sent' }), clock, {
      send: endless,
      sendDeadlineMs: 50,
    });
    db.ingest([seededEvent({ type: 'TypeError', message: 'slow', at: clock.now })], clock.now);
    sender.wake();
    await until(
      'the send to be stopped and stored as a time-out',
      () => db.alerts.history(1, 10)[0]?.reason === 'no answer within 50 ms',
    );
    expect(stopped).toEqual([true]);
    expect(db.alerts.history(1, 10)[0]?.state).toBe('pending');
    expect(failing.at(-1)).toEqual(['webhook test.example (no answer within 50 ms)']);
  });
});
