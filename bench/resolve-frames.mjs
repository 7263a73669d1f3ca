// What /errors pays to resolve a 50-frame browser event through the build's maps: cold (a fresh
// store, as on the first view after a start: the scan of every map, then loading and decoding
// the ones the event needs) and warm (maps cached). The frames are real positions in the built
// chunks: mostly React's (as in a real stack), some router and SDK, some our own route.
// Run with tsx (it imports the resolver's TypeScript) after `npm run build`. Prints figures;
// asserts nothing.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodedMappings, TraceMap } from '@jridgewell/trace-mapping';
import {
  createDirectoryMapStore,
  firstOfStores,
} from '../app/server/inbox/source-maps/map-store.server.ts';
import {
  resolveEventFrames,
  resolveTopFrame,
} from '../app/server/inbox/source-maps/resolve-frame.ts';

const OUTPUT = fileURLToPath(new URL('../.output', import.meta.url));
const CLIENT_MAPS = join(OUTPUT, 'sourcemaps/client');
const ASSETS = join(CLIENT_MAPS, '_build/assets');
const COLD_RUNS = 5;
const WARM_RUNS = 300;

/** How many frames of the 50 come from each chunk (by the chunk name's start). */
const MIX = [
  ['vendor-react-', 30],
  ['router-', 8],
  ['vendor-sentry-', 6],
  ['sentry-example-page-', 3],
  ['app-', 3],
];

function frames() {
  const result = [];
  const images = [];
  const files = readdirSync(ASSETS).filter((name) => name.endsWith('.js.map'));
  for (const [prefix, count] of MIX) {
    const file = files.find((name) => name.startsWith(prefix));
    if (!file) throw new Error(`no map for ${prefix}* in ${ASSETS}: run npm run build`);
    const json = JSON.parse(readFileSync(join(ASSETS, file), 'utf8'));
    const lines = decodedMappings(new TraceMap(json));
    const segments = lines.flatMap((line, index) =>
      line.filter((segment) => segment.length >= 4).map((segment) => [index, segment[0]]),
    );
    const chunkUrl = `http://localhost:3000/_build/assets/${file.replace(/\.map$/, '')}`;
    images.push({ codeFile: chunkUrl, debugId: json.debugId });
    // Positions spread evenly over the chunk: different places in its sources.
    for (let n = 0; n < count; n += 1) {
      const [line, column] = segments[Math.floor(((n + 0.5) * segments.length) / count)];
      result.push({
        filename: chunkUrl,
        function: 'x',
        lineno: line + 1,
        colno: column + 1,
        inApp: true,
      });
    }
  }
  return { exceptions: [{ type: 'Error', value: 'bench', frames: result }], debugImages: images };
}

function openStore() {
  return firstOfStores([
    createDirectoryMapStore({ root: CLIENT_MAPS, chunksRoot: join(OUTPUT, 'public') }),
    createDirectoryMapStore({ root: join(OUTPUT, 'server') }),
  ]);
}

const options = { projectRoot: join(OUTPUT, '..'), serverOutputDir: join(OUTPUT, 'server') };

async function time(fn) {
  const start = process.hrtime.bigint();
  const result = await fn();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, result };
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
const ms = (value) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;

const input = frames();
const cold = [];
let resolved;
for (let run = 0; run < COLD_RUNS; run += 1) {
  const store = openStore();
  const { ms: took, result } = await time(() => resolveEventFrames(input, store, options));
  cold.push(took);
  resolved = result;
}
const store = openStore();
await resolveEventFrames(input, store, options);
const warm = [];
for (let run = 0; run < WARM_RUNS; run += 1) {
  warm.push((await time(() => resolveEventFrames(input, store, options))).ms);
}
const top = [];
for (let run = 0; run < WARM_RUNS; run += 1) {
  top.push((await time(() => resolveTopFrame(input, store, options))).ms);
}
cold.sort((a, b) => a - b);
warm.sort((a, b) => a - b);
top.sort((a, b) => a - b);

const resolutions = resolved.exceptions[0].resolutions;
const resolvedCount = resolutions.filter((r) => r.resolved).length;
console.log(
  `Resolving a 50-frame browser event through .output's maps (${resolvedCount} of 50 frames resolved, ${MIX.length} maps):`,
);
const row = (label, figures) => console.log(`  ${label.padEnd(48)} ${figures}`);
row(
  `cold, a fresh store (scans every map, loads ${MIX.length})`,
  `median ${ms(quantile(cold, 0.5))}, min ${ms(cold[0])}, max ${ms(cold.at(-1))} (${COLD_RUNS} runs)`,
);
row(
  'warm, maps cached',
  `median ${ms(quantile(warm, 0.5))}, p99 ${ms(quantile(warm, 0.99))} (${WARM_RUNS} runs)`,
);
row(
  "the list's top frame (first 17 frames), warm",
  `median ${ms(quantile(top, 0.5))}, p99 ${ms(quantile(top, 0.99))} (${WARM_RUNS} runs)`,
);
