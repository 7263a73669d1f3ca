// Issue 12's targets for our pages, issue 22's for `/`, issue 27's for two workers and issue 35's
// for the rendered and the cached /about, as verdicts over the bench's figures, printed beside
// the figures they judge. Sizes in bytes; KB in the text is 1,000 bytes.

const TARGETS = {
  /** /about req/s, rendered, at least this share of the minimal Start app's (issue 35; issue 12 asked 0.9). */
  minRpsRatio: 0.95,
  /** /about from the page cache: req/s at least this many times the minimal Start app's (issue 35). */
  minCachedRpsRatio: 3,
  /** /about p99 at most this multiple of the minimal Start app's. */
  maxP99Ratio: 1.3,
  /** JavaScript before hydration, gzip -9: at most the minimal app's plus this. */
  maxExtraGzipBeforeHydration: 35_000,
  /** A first visit to /about: JavaScript on the wire, headers included. */
  maxFirstVisitWire: 110_000,
  /** A second visit: JavaScript on the wire. */
  maxSecondVisitWire: 0,
  /** `/` req/s at least this share of the minimal Start app's (issue 22: no render place held while streaming). */
  minHomeRpsRatio: 0.9,
  /** Issue 27: two workers serve /about at least this many times one worker's req/s (2 cores)... */
  minTwoWorkerRpsRatio: 1.8,
  /** ...with a p99 no worse than one worker's. */
  maxTwoWorkerP99Ratio: 1,
};

/**
 * Issue 27's verdicts: `two` and `one` are our server's /about figures ({ rps, p99, cpuMsPerRequest })
 * with two workers and with one, from the same run; `cores` the machine's. The req/s verdict
 * also says how far the machine's CPU lets two workers go at one worker's CPU per request: a
 * process that already uses more than one core (its GC and I/O threads) cannot double on two.
 */
export function workerVerdicts(two, one, cores) {
  const known = [two?.rps, one?.rps, two?.p99, one?.p99].every(
    (figure) => figure !== undefined && !Number.isNaN(figure),
  );
  const rpsRatio = two?.rps / one?.rps;
  const p99Ratio = two?.p99 / one?.p99;
  const coresUsed = (one?.rps * one?.cpuMsPerRequest) / 1000;
  const ceiling = Number.isFinite(coresUsed)
    ? `; one worker uses ${coresUsed.toFixed(2)} of ${cores} cores, so this machine's CPU allows at most ${(cores / coresUsed).toFixed(2)} x`
    : '';
  return [
    {
      target: `/about req/s >= ${TARGETS.minTwoWorkerRpsRatio} x one worker`,
      pass: known ? rpsRatio >= TARGETS.minTwoWorkerRpsRatio : null,
      detail: known
        ? `${rpsRatio.toFixed(2)} x (${Math.round(two.rps)} vs ${Math.round(one.rps)})${ceiling}`
        : 'not measured',
    },
    {
      target: "/about p99 no worse than one worker's",
      pass: known ? p99Ratio <= TARGETS.maxTwoWorkerP99Ratio : null,
      detail: known
        ? `${p99Ratio.toFixed(2)} x (${two.p99.toFixed(1)} vs ${one.p99.toFixed(1)} ms)`
        : 'not measured',
    },
  ];
}

const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;

/**
 * One verdict per target for one of our servers: { target, pass (true, false, or null when a
 * figure is missing), detail }. `ours` and `minimal`: { about: { rps, p99 }, home: { rps },
 * bytes: { ... } }
 * with `bytes` as measurePageScripts returns it (or undefined when that part failed).
 */
export function verdicts(ours, minimal) {
  const rows = [];
  const add = (target, figures, judge, detail) => {
    const known = figures.every((figure) => figure !== undefined && !Number.isNaN(figure));
    rows.push({ target, pass: known ? judge() : null, detail: known ? detail() : 'not measured' });
  };
  const rpsRatio = ours.about?.rps / minimal.about?.rps;
  add(
    `/about req/s >= ${TARGETS.minRpsRatio} x minimal`,
    [ours.about?.rps, minimal.about?.rps],
    () => rpsRatio >= TARGETS.minRpsRatio,
    () =>
      `${rpsRatio.toFixed(2)} x (${Math.round(ours.about.rps)} vs ${Math.round(minimal.about.rps)})`,
  );
  const p99Ratio = ours.about?.p99 / minimal.about?.p99;
  add(
    `/about p99 <= ${TARGETS.maxP99Ratio} x minimal`,
    [ours.about?.p99, minimal.about?.p99],
    () => p99Ratio <= TARGETS.maxP99Ratio,
    () =>
      `${p99Ratio.toFixed(2)} x (${ours.about.p99.toFixed(1)} vs ${minimal.about.p99.toFixed(1)} ms)`,
  );
  const extra = ours.bytes?.beforeHydration.gzip - minimal.bytes?.beforeHydration.gzip;
  add(
    `JS before hydration <= minimal + ${kb(TARGETS.maxExtraGzipBeforeHydration)} gzip`,
    [ours.bytes?.beforeHydration.gzip, minimal.bytes?.beforeHydration.gzip],
    () => extra <= TARGETS.maxExtraGzipBeforeHydration,
    () =>
      `${extra >= 0 ? '+' : ''}${kb(extra)} (${kb(ours.bytes.beforeHydration.gzip)} vs ${kb(minimal.bytes.beforeHydration.gzip)})`,
  );
  add(
    `first visit JS on the wire <= ${kb(TARGETS.maxFirstVisitWire)}`,
    [ours.bytes?.first.wire],
    () => ours.bytes.first.wire <= TARGETS.maxFirstVisitWire,
    () => kb(ours.bytes.first.wire),
  );
  // Nothing on the wire now proves little when it rests on heuristic freshness (freshness.mjs).
  add(
    'second visit: no JS on the wire',
    [ours.bytes?.second.wire, ours.bytes?.first.withoutFreshness],
    () =>
      ours.bytes.second.wire <= TARGETS.maxSecondVisitWire &&
      ours.bytes.first.withoutFreshness === 0,
    () =>
      `${ours.bytes.second.count} script request(s), ${kb(ours.bytes.second.wire)}; ${ours.bytes.first.withoutFreshness} of ${ours.bytes.first.count} scripts without max-age or Expires`,
  );
  const homeRatio = ours.home?.rps / minimal.home?.rps;
  add(
    `/ req/s >= ${TARGETS.minHomeRpsRatio} x minimal`,
    [ours.home?.rps, minimal.home?.rps],
    () => homeRatio >= TARGETS.minHomeRpsRatio,
    () =>
      `${homeRatio.toFixed(2)} x (${Math.round(ours.home.rps)} vs ${Math.round(minimal.home.rps)})`,
  );
  return rows;
}

/**
 * Issue 35's verdict on the page cache: `cached` and `minimal` are /about's figures
 * ({ rps, cpuMsPerRequest }) of our server with the cache on and of the minimal Start app, both
 * one process, in the same run. The CPU time per request says the same more steadily.
 */
export function cacheVerdicts(cached, minimal) {
  const known = [cached?.rps, minimal?.rps].every(
    (figure) => figure !== undefined && !Number.isNaN(figure),
  );
  const ratio = cached?.rps / minimal?.rps;
  const cpuRatio = minimal?.cpuMsPerRequest / cached?.cpuMsPerRequest;
  const cpu = Number.isFinite(cpuRatio)
    ? `; CPU per request ${cached.cpuMsPerRequest.toFixed(3)} vs ${minimal.cpuMsPerRequest.toFixed(3)} ms, ${cpuRatio.toFixed(1)} x less`
    : '';
  return [
    {
      target: `/about from the cache req/s >= ${TARGETS.minCachedRpsRatio} x minimal`,
      pass: known ? ratio >= TARGETS.minCachedRpsRatio : null,
      detail: known
        ? `${ratio.toFixed(2)} x (${Math.round(cached.rps)} vs ${Math.round(minimal.rps)})${cpu}`
        : 'not measured',
    },
  ];
}
