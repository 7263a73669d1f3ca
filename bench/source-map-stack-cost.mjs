// What Node's source maps cost a failure: the time to build `error.stack` for an error thrown
// through the built server's code (formatDsn of app/monitoring/dsn.ts inside .output/server/chunks/nitro),
// with maps off and on, each in a fresh process. The first stack with maps on also decodes the
// chunk's map. Needs `npm run build`. Prints figures; asserts nothing.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHUNK = new URL('../.output/server/chunks/nitro/nitro.mjs', import.meta.url).href;
const ROUNDS = 2_000;

if (process.argv[2] === 'measure') {
  const mapsOn = process.argv[3] === 'on';
  // Before the import: Node reads a module's map only when it loads the module after this.
  if (mapsOn) process.setSourceMapsEnabled(true);
  const chunk = await import(CHUNK);
  const formatDsn = Object.values(chunk).find((f) => f?.name === 'formatDsn');
  if (!formatDsn) throw new Error('formatDsn is not exported by the nitro chunk');
  // A DSN whose fields throw when read: the error is created inside formatDsn's caller chain.
  const trap = new Proxy(
    {},
    {
      get() {
        throw new Error('boom');
      },
    },
  );
  // A stack as deep as Node keeps (10 frames), thrown from inside the built code.
  const thrown = (depth) => {
    if (depth > 0) return thrown(depth - 1);
    try {
      formatDsn(trap);
    } catch (error) {
      return error;
    }
  };
  const time = (fn) => {
    const start = process.hrtime.bigint();
    fn();
    return Number(process.hrtime.bigint() - start) / 1e3;
  };
  let stack = '';
  const first = time(() => (stack = thrown(7).stack));
  const samples = [];
  for (let i = 0; i < ROUNDS; i++) {
    const error = thrown(7);
    samples.push(time(() => error.stack));
  }
  samples.sort((a, b) => a - b);
  const frame = stack.split('\n').find((line) => line.includes('formatDsn'));
  console.log(
    JSON.stringify({
      first,
      median: samples[ROUNDS >> 1],
      p99: samples[Math.floor(ROUNDS * 0.99)],
      frame,
    }),
  );
} else {
  const rows = {};
  for (const mode of ['off', 'on']) {
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), 'measure', mode], {
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(child.stderr);
    rows[mode] = JSON.parse(child.stdout.trim().split('\n').at(-1));
  }
  for (const [mode, r] of Object.entries(rows)) {
    console.log(
      `maps ${mode.padEnd(3)}  first stack ${r.first.toFixed(0).padStart(6)} µs   then median ${r.median.toFixed(1).padStart(6)} µs, p99 ${r.p99.toFixed(1).padStart(6)} µs   ${r.frame.trim()}`,
    );
  }
  console.log(
    `cost per failure with maps on: +${(rows.on.median - rows.off.median).toFixed(1)} µs (median); the first failure after start +${((rows.on.first - rows.off.first) / 1000).toFixed(1)} ms`,
  );
}
