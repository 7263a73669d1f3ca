import type { StackParser } from '@sentry/core';

/**
 * Stack traces keep at most this many frames: the ones that locate a failure, and a bound on
 * what a deep recursion costs to send and store (the SDK's own stack parser stops at 50 too).
 */
export const MAX_STACK_FRAMES = 50;

/**
 * A stack parser that keeps the `limit` frames nearest to where the error was thrown. Sentry
 * orders frames oldest first (the crash site is the last frame), so those are the last ones.
 * The SDK's own parser stops at 50 today; this states the limit here instead of relying on it.
 */
export function limitStackFrames(parser: StackParser, limit = MAX_STACK_FRAMES): StackParser {
  return (stack, skipFirstLines, framesToPop) =>
    parser(stack, skipFirstLines, framesToPop).slice(-limit);
}
