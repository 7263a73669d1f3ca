// autocannon in a process of its own (see load.mjs): one GET load, figures sent to the parent.
// Latencies are taken per response: autocannon's own percentiles are whole milliseconds.
import autocannon from 'autocannon';

const { url, connections, durationS, userAgent } = JSON.parse(process.argv[2]);
// The parent gone (killed, crashed): nobody will read the figures.
process.on('disconnect', () => process.exit(0));

const latencies = [];
// Its own CPU under the load: on a 2-core machine the load generator takes a share the server
// cannot have (bench/workers.mjs prints it).
const cpuBefore = process.cpuUsage();
const run = autocannon({
  url,
  connections,
  duration: durationS,
  headers: { 'user-agent': userAgent },
});
run.on('response', (_client, status, _bytes, ms) => {
  if (status >= 200 && status < 400) latencies.push(ms);
});
const result = await run;
const sorted = Float64Array.from(latencies).sort();
const at = (fraction) =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
process.send(
  {
    rps: result.requests.average,
    p50: at(0.5),
    p99: at(0.99),
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
    cpuMs: ((used) => (used.user + used.system) / 1000)(process.cpuUsage(cpuBefore)),
  },
  () => process.disconnect(),
);
