/**
 * Under `vinxi dev`, Start 1.120's server-function handler logs three lines per call with
 * `console.info`: "ServerFn Request: <id>", "ServerFn Response: <status>" and " - Payload: <the
 * first 100 characters of the result>". A user's data in the dev log on every click buries the
 * lines that matter, so exactly these shapes are dropped; every other line goes through.
 */

/** Start's per-call lines, as its handler writes them (the request line starts with a newline). */
const START_CALL_LINES = [
  /^\nServerFn Request: \S+$/,
  /^ServerFn Response: \d{3}$/,
  /^ - Payload: /,
];

export function isStartCallLogLine(args: readonly unknown[]): boolean {
  const [first] = args;
  return (
    args.length === 1 &&
    typeof first === 'string' &&
    START_CALL_LINES.some((line) => line.test(first))
  );
}

/** Wraps `console.info` once so that Start's per-call lines are dropped. */
export function quietStartCallLogs(target: Pick<Console, 'info'> = console): void {
  const info = target.info as typeof target.info & { quietStartCalls?: true };
  if (info.quietStartCalls) return;
  const quiet = Object.assign(
    (...args: unknown[]) => {
      if (!isStartCallLogLine(args)) info.apply(target, args);
    },
    { quietStartCalls: true as const },
  );
  target.info = quiet;
}
