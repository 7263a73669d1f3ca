/**
 * What the main thread and the inbox's writer thread say to each other (see
 * inbox-writer.server.ts), and the pure rules around it. One request per envelope, one answer
 * per request; the bytes travel by transfer, not by copy.
 */

/** Where one envelope goes: written to `temp`, renamed to `path`, then `dir` is synced. */
export interface WriteTarget {
  dir: string;
  temp: string;
  path: string;
}

export interface WriteRequest extends WriteTarget {
  id: number;
  bytes: Uint8Array;
}

export type WriteResult =
  | { id: number; ok: true }
  | { id: number; ok: false; message: string; code: string | undefined };

/** The error code of an append refused because too many writes are waiting already. */
export const INBOX_BUSY = 'EINBOXBUSY';
/** The error code of an append whose writer thread stopped before it answered. */
export const WRITER_STOPPED = 'EINBOXWRITERSTOPPED';

/**
 * Bytes that can be moved to the writer thread without touching anyone else's memory: the
 * bytes themselves when they are the whole of their buffer, else a tight copy. A view into a
 * larger buffer (a socket read, Node's pool of small Buffers) would move, or structured-clone,
 * the whole buffer.
 */
export function asTransferable(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const { buffer } = bytes;
  if (
    buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === buffer.byteLength
  ) {
    return bytes as Uint8Array<ArrayBuffer>;
  }
  return new Uint8Array(bytes);
}

/** The error a failed write rejects with: the thread's message, and its code when it had one. */
export function errorOf(result: { message: string; code: string | undefined }): Error {
  const error = new Error(result.message) as NodeJS.ErrnoException;
  if (result.code !== undefined) error.code = result.code;
  return error;
}

export function busyError(maxPending: number): Error {
  return errorOf({
    message: `the local inbox has ${maxPending} writes waiting already`,
    code: INBOX_BUSY,
  });
}

/** By code, not by class: the tunnel and the writer may be different copies of this module. */
export function isInboxBusy(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === INBOX_BUSY;
}
