/**
 * The webhook channel (MONITORING_ALERT_WEBHOOK_URL): one POST of ./alert-text.ts's JSON per
 * alert. A webhook's URL is its secret (Slack's and Discord's carry the key in the path), so
 * the channel's name, its reasons and anything logged name the host only. The call is bounded:
 * a time-out, no redirect followed (a 3xx is a failure: a moved hook must be configured
 * again, never chased to wherever it points), and at most ANSWER_BYTES of the answer read.
 */
import type { AlertChannel, Delivery } from './alert';
import { retryAfterMsOf } from './alert-policy';
import { webhookBody } from './alert-message';

/** How long a webhook may take to answer before the attempt counts as a time-out (retried). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Bytes of a webhook's answer read at most; the rest is dropped unread. */
export const ANSWER_BYTES = 4 * 1024;

export interface WebhookOptions {
  timeoutMs?: number;
  /** The clock, for a Retry-After given as a date. */
  now?: () => number;
}

export function webhookChannel(url: URL, options: WebhookOptions = {}): AlertChannel {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const target = url.href;
  return {
    name: `webhook ${url.host}`,
    async send(alert, signal): Promise<Delivery> {
      const timeout = AbortSignal.timeout(timeoutMs);
      let response: Response;
      try {
        response = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'error-inbox-alerts' },
          body: JSON.stringify(webhookBody(alert)),
          redirect: 'manual',
          signal: AbortSignal.any([signal, timeout]),
        });
        // Read within the same time-out: a receiver that answers and then trickles is a time-out.
        await readAtMost(response, ANSWER_BYTES);
      } catch (error) {
        if (timeout.aborted)
          return { outcome: 'retry', reason: `no answer within ${timeoutMs} ms` };
        return { outcome: 'retry', reason: networkReasonOf(error) };
      }
      return deliveryOf(response.status, response.headers.get('retry-after'), now());
    },
  };
}

/**
 * An answer's status, as the sender's policy takes it: 2xx sent; 408, 429 and 5xx worth
 * another try (with the receiver's Retry-After); a redirect or any other 4xx failed for good.
 */
export function deliveryOf(status: number, retryAfter: string | null, now: number): Delivery {
  if (status >= 200 && status < 300) return { outcome: 'sent' };
  if (status >= 300 && status < 400) {
    return { outcome: 'failed', reason: `answered ${status}, a redirect (not followed)` };
  }
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs = retryAfterMsOf(retryAfter, now);
    return {
      outcome: 'retry',
      reason: `answered ${status}`,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  }
  return { outcome: 'failed', reason: `answered ${status}` };
}

/** Reads up to `limit` bytes of the body, then lets the rest go. */
async function readAtMost(response: Response, limit: number): Promise<number> {
  const reader = response.body?.getReader();
  if (!reader) return 0;
  let read = 0;
  try {
    while (read < limit) {
      const { done, value } = await reader.read();
      if (done) return read;
      read += value.byteLength;
    }
    return read;
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The error's code only: undici's messages name the address, and a URL could follow. */
function networkReasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  if ((error as { name?: unknown } | undefined)?.name === 'AbortError') return 'stopped';
  return code ? `could not connect (${code})` : 'could not connect';
}
