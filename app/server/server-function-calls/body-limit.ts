/**
 * How large a server function call's body may be: pure policy, applied by our node entry before
 * nitro, h3 or Start touch the request (Start reads a whole body into memory, with no limit).
 * Why 64 KiB and why 411: docs/decisions/0603-server-function-bodies.md.
 */

/**
 * The largest body a server function call may carry. Our calls carry a few fields (a page
 * number, an event id, a form's token); a client building anything near this is broken or hostile.
 */
export const SERVER_FUNCTION_MAX_BODY_BYTES = 64 * 1024;

export interface BodyRefusal {
  status: 411 | 413;
  reason: string;
}

/**
 * The refusal for a body announced by these headers, or undefined when it may be read.
 * A declared length is enforced by Node's parser (it never hands over more than it), so it
 * is the bound. A body without one (chunked) is refused with 411 instead of counted: every
 * client of ours (Start's fetcher, a plain HTML form, fetch with a string or FormData) sends
 * Content-Length, and refusing keeps the body unread, where counting would mean re-feeding a
 * consumed stream to h3 and Start.
 */
export function bodyLimitRefusal(headers: {
  'content-length'?: string;
  'transfer-encoding'?: string;
}): BodyRefusal | undefined {
  const declared = headers['content-length'];
  if (declared === undefined) {
    if (headers['transfer-encoding'] === undefined) return undefined;
    return { status: 411, reason: 'a server function call needs a Content-Length' };
  }
  // Node has already refused a Content-Length that is not a number (400).
  const length = Number(declared);
  if (length > SERVER_FUNCTION_MAX_BODY_BYTES) {
    return {
      status: 413,
      reason: `body of ${length} bytes is over the limit of ${SERVER_FUNCTION_MAX_BODY_BYTES}`,
    };
  }
  return undefined;
}
