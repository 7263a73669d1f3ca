// npm run bench (after bench/tunnel.mjs), or npm run bench:adversarial: the built server under
// hostile conditions, figures side by side in one run, no assertions (docs/performance.md).
//   probes  /health and the tunnel probed on new connections while /about is under -c64,
//           load shedding off and at its default, Sentry and local inbox mode;
//   slow    server RSS with 2,000 slow clients (trickled tunnel bodies, endless headers);
//   inbox   /errors with 1,000 stored envelopes of ~1 MiB, and after a burst of them;
//   fairness  a newcomer's /health, pages and reports while attackers on other addresses hold
//           the connections, the tunnel's receive buffer or its connections to Sentry.
//   starvation  /about idle and while 16 callers loop on each public server function, or hold
//           server-function calls open with trickled bodies: p50, p99, 503s side by side.
// Choose parts with argv or BENCH_ADVERSARIAL: `node bench/adversarial.mjs probes,slow`.
// BENCH_SERVER_ENTRY=<a copy of .output>/server/index.mjs measures another build instead.
// Every server, load and client runs in a child process on 127.0.0.1: the prober's event loop
// stays free. Run after `npm run build` (the npm scripts see to it).

import { availableParallelism, loadavg } from 'node:os';
import { fairnessPart } from './adversarial/part-fairness.mjs';
import { inboxPart } from './adversarial/part-inbox.mjs';
import { probesPart } from './adversarial/part-probes.mjs';
import { slowClientsPart } from './adversarial/part-slow.mjs';
import { starvationPart } from './adversarial/part-starvation.mjs';
import { ENTRY } from './adversarial/server.mjs';

const PARTS = {
  probes: probesPart,
  slow: slowClientsPart,
  inbox: inboxPart,
  fairness: fairnessPart,
  starvation: starvationPart,
};

const chosen = (process.argv[2] ?? process.env.BENCH_ADVERSARIAL ?? Object.keys(PARTS).join(','))
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = chosen.filter((name) => !(name in PARTS));
if (unknown.length > 0) {
  console.error(
    `unknown part(s) ${unknown.join(', ')}; choose from ${Object.keys(PARTS).join(', ')}`,
  );
  process.exit(2);
}

// Killed by a signal, exit handlers do not run: exit instead, and children.mjs kills the children.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));

// Other work on the machine changes every figure below: say how busy it was.
const busy = () =>
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`;
console.log(`Adversarial bench (${chosen.join(', ')}) of ${ENTRY}, ${busy()}.\n`);
const started = performance.now();
for (const name of chosen) {
  const partStarted = performance.now();
  // One part failing (a server that would not start) leaves the others' figures worth having.
  try {
    await PARTS[name]();
  } catch (error) {
    console.error(`\n[${name}] failed: ${error instanceof Error ? error.stack : error}`);
    process.exitCode = 1;
  }
  console.log(`\n(${name}: ${((performance.now() - partStarted) / 1000).toFixed(0)} s)\n`);
}
console.log(
  `Adversarial bench: ${((performance.now() - started) / 1000).toFixed(0)} s in all; ${busy()}.`,
);
