// The printed tables of npm run bench:pages: throughput per server and path, the JavaScript
// each server's /about costs a browser, and the targets' verdicts.
import { printTable } from '../adversarial/table.mjs';

const ms = (value) => (Number.isNaN(value) ? '-' : value.toFixed(1));
const ratio = (value) => (Number.isFinite(value) ? value.toFixed(2) : '-');
const kb = (bytes) => (bytes === undefined ? '-' : (bytes / 1000).toFixed(1));

/** `rows`: [{ server, path, figures: { rps, p50, p99, failed }, minimal: same for the minimal app }]. */
export function printLoadTable(rows) {
  printTable(
    [
      { title: 'server' },
      { title: 'path' },
      { title: 'req/s', right: true },
      { title: 'p50 ms', right: true },
      { title: 'p99 ms', right: true },
      { title: 'req/s x minimal', right: true },
      { title: 'p99 x minimal', right: true },
      { title: 'failed', right: true },
      { title: 'CPU ms/req', right: true },
      { title: 'minimal CPU / this', right: true },
    ],
    rows.map(({ server, path, figures, minimal, cpuMsPerRequest, minimalCpuMsPerRequest }) => [
      server,
      path,
      Math.round(figures.rps),
      ms(figures.p50),
      ms(figures.p99),
      ratio(figures.rps / minimal.rps),
      ratio(figures.p99 / minimal.p99),
      figures.failed,
      cpuMsPerRequest === undefined ? 'n/a' : cpuMsPerRequest.toFixed(2),
      cpuMsPerRequest === undefined || minimalCpuMsPerRequest === undefined
        ? 'n/a'
        : ratio(minimalCpuMsPerRequest / cpuMsPerRequest),
    ]),
  );
}

/** Each round's req/s, when there were several: the table above shows the median round. */
export function printRounds(rows) {
  const rounds = rows[0]?.rounds.length ?? 0;
  printTable(
    [
      { title: 'req/s per round' },
      { title: 'path' },
      ...Array.from({ length: rounds }, (_, index) => ({ title: `#${index + 1}`, right: true })),
    ],
    rows.map(({ server, path, rounds: figures }) => [
      server,
      path,
      ...figures.map((figure) => `${Math.round(figure.rps)} (p99 ${ms(figure.p99)})`),
    ]),
  );
}

/**
 * The scripts' bytes side by side: one column per server, a ratio to the minimal app after
 * each of ours. `columns`: [{ name, bytes }], the minimal app first.
 */
export function printBytesTable(columns) {
  const [minimal] = columns;
  const measures = [
    ['first visit: scripts', (b) => b.first.count, String],
    ['first visit: raw KB', (b) => b.first.raw, kb],
    ['first visit: gzip -9 KB', (b) => b.first.gzip, kb],
    ['first visit: on the wire KB', (b) => b.first.wire, kb],
    ['first visit: sent as', (b) => b.first.encodings, String, false],
    ['first visit: Cache-Control', (b) => b.first.cacheControl, String, false],
    ['first visit: scripts without max-age', (b) => b.first.withoutFreshness, String, false],
    ['before hydration: scripts', (b) => b.beforeHydration.count, String],
    ['before hydration: raw KB', (b) => b.beforeHydration.raw, kb],
    ['before hydration: gzip -9 KB', (b) => b.beforeHydration.gzip, kb],
    ['before hydration: on the wire KB', (b) => b.beforeHydration.wire, kb],
    ['second visit: script requests', (b) => b.second.count, String],
    ['second visit: on the wire KB', (b) => b.second.wire, kb],
  ];
  const header = [{ title: 'JS for /about in Chromium' }];
  for (const [index, column] of columns.entries()) {
    header.push({ title: column.name, right: true });
    if (index > 0) header.push({ title: 'x minimal', right: true });
  }
  const rows = measures.map(([label, of, format, comparable = true]) => {
    const row = [label];
    for (const [index, column] of columns.entries()) {
      row.push(column.bytes ? format(of(column.bytes)) : 'failed');
      if (index === 0) continue;
      const mine = column.bytes && of(column.bytes);
      const theirs = minimal.bytes && of(minimal.bytes);
      row.push(comparable && typeof mine === 'number' && theirs ? ratio(mine / theirs) : '');
    }
    return row;
  });
  printTable(header, rows);
}

/** `groups`: [{ name, rows: verdicts(...) }]. */
export function printVerdicts(groups) {
  for (const { name, rows } of groups) {
    for (const { target, pass, detail } of rows) {
      const word = pass === null ? 'N/A ' : pass ? 'PASS' : 'FAIL';
      console.log(`${word}  ${name}: ${target}: ${detail}`);
    }
  }
}
