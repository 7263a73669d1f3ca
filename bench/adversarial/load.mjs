// autocannon in a child process of its own: a load sharing the prober's event loop would delay
// the probes' timers and callbacks, and the probes would measure the load generator.
// Run directly (by startLoad), this file is the child: it runs one load and sends its figures.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { forkNode, nextMessage } from './children.mjs';
import { percentile } from './probe.mjs';

const SELF = fileURLToPath(import.meta.url);

/**
 * Starts a load: { url, method, headers, body, connections, durationS }. Returns the child
 * (for the caller's finally) and a promise of its figures: { rps, ok, shed, other, p99 }.
 */
export function startLoad(options) {
  const child = forkNode(SELF, [JSON.stringify(options)]);
  // autocannon's own request timeout is 10 s: the load ends within its duration and that.
  const result = nextMessage(child, (options.durationS + 30) * 1000);
  return { child, result };
}

async function runLoad({ url, method = 'GET', headers = {}, body, connections, durationS }) {
  const { default: autocannon } = await import('autocannon');
  const okLatencies = [];
  const run = autocannon({ url, method, headers, body, connections, duration: durationS });
  run.on('response', (_client, status, _bytes, ms) => {
    if (status >= 200 && status < 300) okLatencies.push(ms);
  });
  const result = await run;
  const shed = result.statusCodeStats?.[503]?.count ?? 0;
  const sorted = Float64Array.from(okLatencies).sort();
  return {
    rps: result.requests.average,
    ok: result['2xx'],
    shed,
    // Other statuses, socket errors and autocannon's timeouts (no answer within 10 s).
    other: result.non2xx - shed + result.errors + result.timeouts,
    p99: percentile(sorted, 0.99),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // The parent gone (killed, crashed): nobody will read the figures.
  process.on('disconnect', () => process.exit(0));
  const figures = await runLoad(JSON.parse(process.argv[2]));
  process.send(figures, () => process.disconnect());
}
