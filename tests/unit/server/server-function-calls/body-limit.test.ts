import { describe, expect, it } from 'vitest';
import {
  bodyLimitRefusal,
  SERVER_FUNCTION_MAX_BODY_BYTES,
} from '#app/server/server-function-calls/body-limit';

describe('bodyLimitRefusal: which bodies a server function call may carry', () => {
  it('is 64 KiB', () => {
    expect(SERVER_FUNCTION_MAX_BODY_BYTES).toBe(65_536);
  });

  it.each([
    ['no body at all (a GET)', {}],
    ['an empty body', { 'content-length': '0' }],
    ['a body of exactly the limit', { 'content-length': '65536' }],
  ])('lets through %s', (_, headers) => {
    expect(bodyLimitRefusal(headers)).toBeUndefined();
  });

  it.each([
    ['one byte over the limit', '65537'],
    ['200 MB', '209715200'],
    ['more than a safe integer', '99999999999999999999999'],
  ])('refuses a declared length %s with 413, saying the limit', (_, length) => {
    const refusal = bodyLimitRefusal({ 'content-length': length });
    expect(refusal?.status).toBe(413);
    expect(refusal?.reason).toContain('65536');
  });

  it.each([['chunked'], ['gzip, chunked']])(
    'refuses a body without a length (Transfer-Encoding: %s) with 411',
    (transferEncoding) => {
      expect(bodyLimitRefusal({ 'transfer-encoding': transferEncoding })?.status).toBe(411);
    },
  );
});
