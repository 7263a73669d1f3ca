/**
 * Phase 1: the body up to the end of the envelope's header line, at most 64 KiB of it. The
 * chunks read stay on the exchange for the next phase, which sends or stores them first.
 */
import { HeaderLineScanner } from './envelope-header';
import type { Exchange } from './exchange.server';

/** Calls `onLine` with the header line, and whether the body has ended with it. */
export function readHeaderLine(
  exchange: Exchange,
  onLine: (line: Uint8Array, ended: boolean) => void,
): void {
  const { options } = exchange;
  const scanner = new HeaderLineScanner();
  const stop = exchange.read(
    (chunk) => {
      exchange.received += chunk.length;
      if (exchange.received > options.maxBytes) {
        exchange.rejectAndClose(413, `envelope over ${options.maxBytes} bytes`);
        return;
      }
      exchange.head.push(chunk);
      const newline = scanner.push(chunk);
      if (newline === 'too-long') {
        exchange.reject(400, 'no envelope header line within 64 KiB');
        return;
      }
      if (newline === -1) return;
      const { head, received } = exchange;
      const line =
        head.length === 1
          ? chunk.subarray(0, newline)
          : Buffer.concat(head).subarray(0, received - chunk.length + newline);
      stop();
      onLine(line, false);
    },
    () => {
      if (exchange.received === 0) {
        exchange.reject(400, 'empty envelope');
        return;
      }
      // A body without a newline is a header line alone (no items).
      stop();
      onLine(Buffer.concat(exchange.head), true);
    },
  );
}
