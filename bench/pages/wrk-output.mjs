// Reads the figures out of `wrk --latency` output. A figure it cannot find stops the bench
// with wrk's whole output; the report prints every figure it read (req/s, p50, p99, failed),
// so a misread unit shows there, beside the minimal app's figures read the same way.

const UNIT_MS = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "812.00us", "1.50ms", "2.01s" → milliseconds. */
function durationMs(text) {
  const match = /^(\d+(?:\.\d+)?)(us|ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`not a wrk duration: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

/** { rps, p50, p99 (ms), requests, failed } from wrk's report; throws when a figure is missing. */
export function parseWrkOutput(output) {
  const find = (pattern, what) => {
    const match = pattern.exec(output);
    if (!match) throw new Error(`wrk printed no ${what}:\n${output}`);
    return match[1];
  };
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(
    output,
  );
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(output);
  return {
    rps: Number(find(/^Requests\/sec:\s+([\d.]+)/m, 'Requests/sec')),
    p50: durationMs(find(/^\s+50%\s+(\S+)/m, '50th percentile (run with --latency)')),
    p99: durationMs(find(/^\s+99%\s+(\S+)/m, '99th percentile (run with --latency)')),
    requests: Number(find(/^\s+(\d+) requests in /m, 'request count')),
    // Statuses other than 2xx/3xx, refused or reset connections and wrk's timeouts.
    failed:
      (non2xx ? Number(non2xx[1]) : 0) +
      (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}
