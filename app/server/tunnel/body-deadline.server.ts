/**
 * The whole envelope must arrive within `bodyTimeoutMs` of the start of the exchange, else 408
 * and the connection is closed (docs/decisions/0104): a trickling client must not hold a
 * socket, or a forward to Sentry, for as long as it likes.
 */
import type { Exchange } from './exchange.server';

export function enforceBodyDeadline(exchange: Exchange): void {
  const { req } = exchange;
  if (req.complete) return;
  const timer = setTimeout(() => onBodyDeadline(exchange), exchange.options.bodyTimeoutMs);
  const clear = () => clearTimeout(timer);
  // Not the response's 'close': that comes once the answer is out, while a rejected body
  // may still be draining, and the deadline must bound that too.
  req.once('end', clear);
  req.once('close', clear);
}

function onBodyDeadline(exchange: Exchange): void {
  if (exchange.req.complete) return;
  if (exchange.answered) {
    // A rejection still draining, or Sentry answered early: the rest is not worth waiting for.
    exchange.closeAfterAnswer();
    return;
  }
  // Sentry must never get a complete envelope: the request is cut short, as for a 413.
  exchange.cancelForward?.();
  exchange.rejectAndClose(408, `envelope not complete within ${exchange.options.bodyTimeoutMs} ms`);
}
