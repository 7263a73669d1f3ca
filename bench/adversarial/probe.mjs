// Probes as a load balancer or a browser's first report sends them: each on a new connection
// (agent: false), since a kept-alive probe would skip the accept queue, where new connections
// wait under load (docs/decisions/0601).
import { request } from 'node:http';
import { sleep } from './children.mjs';

export const PROBE_INTERVAL_MS = 200;
export const PROBE_TIMEOUT_MS = 15_000;

/**
 * One request; resolves (never rejects) with its time in ms and its status, or the error's
 * code, or 'timeout' after PROBE_TIMEOUT_MS (then counted at that time).
 */
export function probe(url, { method = 'GET', body, headers = {} } = {}) {
  return new Promise((resolve) => {
    const start = performance.now();
    let settled = false;
    const finish = (status, text = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ms: performance.now() - start, status, text });
    };
    const req = request(url, {
      method,
      agent: false,
      headers:
        body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
    });
    const timer = setTimeout(() => {
      finish('timeout');
      req.destroy();
    }, PROBE_TIMEOUT_MS);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => finish(res.statusCode, text));
      res.on('error', (error) => finish(error.code ?? 'error'));
    });
    req.on('error', (error) => finish(error.code ?? 'error'));
    req.end(body);
  });
}

/**
 * Starts `once()` every `intervalMs` for `durationMs`, each on schedule whether or not the last
 * has answered (a slow answer must not thin out the probes that would show it), after an
 * optional `offsetMs`, until `until()` says so; resolves with every result (with `at`, its
 * start in ms from the first) once all have settled.
 */
export async function probeEvery(
  once,
  { durationMs, intervalMs = PROBE_INTERVAL_MS, offsetMs = 0, until = () => false },
) {
  const pending = [];
  const start = performance.now() + offsetMs;
  for (let i = 0; i * intervalMs < durationMs; i += 1) {
    const wait = start + i * intervalMs - performance.now();
    if (wait > 0) await sleep(wait);
    if (until()) break;
    const at = i * intervalMs;
    pending.push(once().then((result) => ({ ...result, at })));
  }
  return Promise.all(pending);
}

/** Nearest-rank percentile of sorted numbers. */
export function percentile(sorted, fraction) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** p50, p99 and max over every probe, failed ones at the time they took to fail. */
export function summarise(results) {
  const sorted = results.map((result) => result.ms).sort((a, b) => a - b);
  const slowest = results.reduce(
    (worst, result) => (result.ms > worst.ms ? result : worst),
    results[0],
  );
  return {
    slowestAt: slowest?.at,
    count: results.length,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.at(-1) ?? Number.NaN,
    allOk: results.every((result) => typeof result.status === 'number' && result.status < 300),
    answers: countAnswers(results),
  };
}

/** "200×38 timeout×2"; a /health answer that says "degraded" is counted apart. */
function countAnswers(results) {
  const counts = new Map();
  for (const { status, text } of results) {
    const label = text.includes('"degraded"') ? `${status} degraded` : String(status);
    counts.set(label, (counts.get(label) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([label, count]) => `${label}×${count}`)
    .join(' ');
}

/** "1.2 / 3.4 / 5.6" (p50 / p99 / max, ms). */
export function latencies({ p50, p99, max }) {
  const ms = (value) => (value >= 100 ? Math.round(value) : value.toFixed(1));
  return `${ms(p50)} / ${ms(p99)} / ${ms(max)}`;
}
