import { describe, expect, it } from 'vitest';
import {
  asTransferable,
  busyError,
  errorOf,
  INBOX_BUSY,
  isInboxBusy,
  WRITER_STOPPED,
} from '#app/server/inbox/inbox-writer-protocol';

describe('asTransferable', () => {
  const whole = new Uint8Array([1, 2, 3]);
  const big = new Uint8Array(64).fill(7);
  it.each<[string, Uint8Array, boolean]>([
    // name, bytes, moved as they are (not copied)
    ['a Uint8Array that is its whole buffer', whole, true],
    ['a Buffer that is its whole buffer', Buffer.from(new ArrayBuffer(5000)), true],
    ['a view into a larger buffer', big.subarray(8, 16), false],
    ['a view at the start of a larger buffer', big.subarray(0, 8), false],
    ["a small Buffer from Node's shared pool", Buffer.from('tiny'), false],
    ['a view of a SharedArrayBuffer', new Uint8Array(new SharedArrayBuffer(4)), false],
  ])('%s', (_name, bytes, moved) => {
    const result = asTransferable(bytes);
    expect(result === bytes).toBe(moved);
    expect(Buffer.from(result).equals(Buffer.from(bytes))).toBe(true);
    // Whatever comes out can be moved without moving anyone else's bytes.
    expect(result.byteOffset).toBe(0);
    expect(result.byteLength).toBe(result.buffer.byteLength);
    expect(result.buffer).toBeInstanceOf(ArrayBuffer);
  });
});

describe('errorOf', () => {
  it.each<[string, { message: string; code: string | undefined }]>([
    ['a full disk', { message: 'ENOSPC: no space left on device, write', code: 'ENOSPC' }],
    ['a stopped thread', { message: 'the inbox writer thread stopped', code: WRITER_STOPPED }],
    ['an error without a code', { message: 'something odd', code: undefined }],
  ])('carries %s with its message and code', (_name, result) => {
    const error = errorOf(result) as NodeJS.ErrnoException;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe(result.message);
    expect(error.code).toBe(result.code);
    expect('code' in error).toBe(result.code !== undefined);
  });
});

describe('isInboxBusy', () => {
  it.each<[string, unknown, boolean]>([
    ['the busy error', busyError(256), true],
    ['an error with its code from another copy of the module', { code: INBOX_BUSY }, true],
    ['a failed write', errorOf({ message: 'ENOSPC', code: 'ENOSPC' }), false],
    ['a stopped thread', errorOf({ message: 'stopped', code: WRITER_STOPPED }), false],
    ['undefined', undefined, false],
    ['a string', 'EINBOXBUSY', false],
  ])('%s: %s', (_name, error, busy) => {
    expect(isInboxBusy(error)).toBe(busy);
  });

  it('names the bound in its message', () => {
    expect(busyError(256).message).toBe('the local inbox has 256 writes waiting already');
  });
});
