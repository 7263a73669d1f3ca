/**
 * Closing a connection after an answer without losing the answer to a reset.
 */
import type { Socket } from 'node:net';

/**
 * How long a connection closed after an answer may linger, still read and dropped, before it is
 * destroyed: time for the client to read the answer and close its side.
 */
const CLOSE_LINGER_MS = 2_000;

/**
 * Ends our side (FIN) and keeps reading until the client closes, at most CLOSE_LINGER_MS. A
 * destroy at once, with a still-sending client's bytes arriving, makes the kernel answer with a
 * reset, and a reset can make the client's kernel drop the answer it has not yet read: under
 * load, one slow client in twenty never saw its 408.
 */
export function closeGently(socket: Socket): void {
  if (socket.destroyed) return;
  socket.end();
  const timer = setTimeout(() => socket.destroy(), CLOSE_LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}
