// npm run bench:inbox: the local inbox on its database, against the built server. Prints
// figures beside a floor measured in the same run; asserts nothing (issue 23's targets are
// printed beside each figure for the reader).
//
// 1. Ingest: ~50 KB error events through POST /monitoring from 16 client addresses, 64 in
//    flight, for INGEST_SECONDS; the floor is a bare node:http server that reads each body
//    and answers 200 (what any Node server pays to receive the same bytes).
// 2. Ingest beside pages: /about under autocannon -c16, alone and while ~250 events a second
//    arrive; /about's p99 side by side.
// 3. Stalls: the server's own event-loop monitor (getRuntimeHealth's window maximum) during
//    ingest and reads: the longest the loop was held.
// 4. Reads: an inbox of 10,000 issues and 100,000 events; the first /errors after a restart,
//    then the list (three ways), searches and an issue's page, sequentially, p50 and p99, beside
//    /about asked the same way (the floor: a page of ours that reads nothing). Then search alone:
//    the store's listIssues for a set of Sentry-syntax queries (issue 33), p50 and p99, beside the
//    plain list read the same way.
// 5. The store's bounds (issue 32): ingest of new issues into an inbox of 50,000 issues, and the
//    file's size per stored event; then a flood of new issues with 30 random 200-character tags
//    and a release each at MONITORING_INBOX_MAX_MB (evicting all along): its rate, the issues it
//    evicted, and the largest file and WAL seen beside the cap. The floor of each: the same
//    ingest into an empty inbox, in the same run.
// 6. The event cap (issue 32): new issues into an inbox of 60,000 events (6,000 issues of 10),
//    below MONITORING_INBOX_MAX_EVENTS and at it (every event stored evicts one): the eviction
//    costs what it frees, so the two rates should match.
// 7. Alerts (issue 34): ingest of repeats and of new issues with a webhook configured (the bare
//    sink of 1 as the hook), beside the same ingest without one, in the same run: an alert is
//    raised in the ingest's transaction, and should cost it nothing measurable. Interleaved,
//    the best of two runs each.

import { randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openInboxDatabase } from '../app/server/inbox/store/inbox-database.server.ts';
import { startServer } from './adversarial/server.mjs';

const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
// One part alone (`ingest`: 1-3, `reads`: 4, `search`: 4's search alone, on the store,
// `bounds`: 5, `cap`: 5's flood at the cap alone, `event-cap`: 6, `alerts`: 7), or all of them.
const ONLY = process.env.BENCH_INBOX_ONLY;
const runs = (part) => ONLY === undefined || ONLY === part;
const IN_FLIGHT = 64;
/** 4's inbox on disk: 100,000 events of ~2 KB and their indexes, far below it. */
const LARGE_INBOX_MAX_MB = 2048;
const CLIENTS = 16;
const DSN = 'http://localinbox@localhost/1';
const UA = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0 Safari/537.36';
// tests/support/server-function-paths.ts's GET_RUNTIME_HEALTH_FN, called as Start's client calls it.
const RUNTIME_HEALTH_PATH =
  '/_server/app_server_app-info_functions_ts--getRuntimeHealth_createServerFn_handler?createServerFn&payload=%7B%22data%22%3A%7B%7D%2C%22context%22%3A%7B%7D%7D';

/** An error event envelope of about `size` bytes: a real-looking stack and breadcrumbs. */
function errorEnvelope(size, n) {
  const id = crypto.randomUUID().replaceAll('-', '');
  const frames = Array.from({ length: 30 }, (_, i) => ({
    filename: `http://localhost:3000/_build/assets/chunk-${i % 5}.js`,
    function: `fn${i}`,
    lineno: 100 + i,
    colno: 12,
    in_app: i > 25,
  }));
  const event = {
    event_id: id,
    timestamp: Date.now() / 1000,
    platform: 'javascript',
    level: 'error',
    environment: 'production',
    release: 'app@1.0.0',
    request: { url: `http://localhost:3000/page/${n % 50}` },
    contexts: { browser: { name: 'Chrome', version: '156.0' }, os: { name: 'Linux' } },
    exception: { values: [{ type: 'TypeError', value: `bug ${n % 20}`, stacktrace: { frames } }] },
    breadcrumbs: { values: [] },
  };
  const crumb = { category: 'console', level: 'log', message: 'x'.repeat(400), timestamp: 1 };
  while (JSON.stringify(event).length < size) event.breadcrumbs.values.push(crumb);
  const body = JSON.stringify(event);
  return Buffer.from(
    `${JSON.stringify({ event_id: id, dsn: DSN })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(body) })}\n${body}\n`,
  );
}

function post(port, body, localAddress, path = '/monitoring?o=0&p=1') {
  return new Promise((done) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', localAddress, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => done(res.statusCode));
      },
    );
    req.on('error', () => done(0));
    req.end(body);
  });
}

/** Posts for `seconds` with `inFlight` at once (paced to `perSecond` when given). */
async function ingest(port, seconds, { inFlight = IN_FLIGHT, perSecond } = {}) {
  const bodies = Array.from({ length: 200 }, (_, n) => errorEnvelope(50_000, n));
  const statuses = new Map();
  const until = performance.now() + seconds * 1000;
  let sent = 0;
  const started = performance.now();
  const worker = async (w) => {
    while (performance.now() < until) {
      if (perSecond) {
        const due = started + (sent / perSecond) * 1000;
        if (due > performance.now())
          await new Promise((r) => setTimeout(r, due - performance.now()));
      }
      const n = sent++;
      const status = await post(
        port,
        bodies[n % bodies.length],
        `127.0.2.${1 + ((w + n) % CLIENTS)}`,
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: (statuses.get(200) ?? 0) / elapsed, statuses: Object.fromEntries(statuses) };
}

/**
 * The server's own event-loop monitor, read every 100 ms through the public getRuntimeHealth
 * (each answer is the last 250 ms window): the longest the loop was held, as the server saw it.
 */
function watchStalls(port) {
  let longest = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      await new Promise((done) => {
        request(
          {
            host: '127.0.0.1',
            port,
            path: RUNTIME_HEALTH_PATH,
            agent: false,
            localAddress: '127.0.4.1',
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk) => {
              body += chunk;
            });
            res.on('end', () => {
              try {
                longest = Math.max(longest, JSON.parse(body).result.eventLoopDelayMaxMs);
              } catch {
                // A shed or refused probe: the next one reads the window again.
              }
              done();
            });
          },
        )
          .on('error', done)
          .end();
      });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return async () => {
    running = false;
    await loop;
    return longest;
  };
}

async function pageLoad(port, path, seconds = 5) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}${path}`,
    connections: 16,
    duration: seconds,
    headers: { 'user-agent': UA },
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx };
}

async function sequential(port, path, count = 200, cookie) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const at = performance.now();
    const status = await new Promise((done) => {
      request(
        {
          host: '127.0.0.1',
          port,
          path,
          agent: false,
          headers: { 'user-agent': UA, ...(cookie ? { cookie } : {}) },
        },
        (res) => {
          res.resume();
          res.on('end', () => done(res.statusCode));
        },
      )
        .on('error', () => done(0))
        .end();
    });
    if (status !== 200) throw new Error(`${path} answered ${status}`);
    times.push(performance.now() - at);
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(count * 0.5)], p99: times[Math.floor(count * 0.99)] };
}

/** The floor for ingest: a bare node:http server that reads each body and answers 200. */
async function bareSink() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { port: server.address().port, close: () => new Promise((r) => server.close(r)) };
}

/**
 * 10,000 issues of 10 events each, written straight into the database; with a cap on disk that
 * holds them all (the default cap kept about 36,000 of them).
 */
function seedLargeInbox(dir) {
  mkdirSync(dir, { recursive: true });
  const db = openInboxDatabase(join(dir, 'inbox.sqlite'), {
    maxEvents: 200_000,
    maxMb: LARGE_INBOX_MAX_MB,
  });
  const now = Date.now();
  const payload = JSON.stringify(JSON.parse(errorEnvelope(2_000, 0).toString().split('\n')[2]));
  for (let batch = 0; batch < 100; batch++) {
    const envelopes = [];
    for (let i = 0; i < 1000; i++) {
      const n = batch * 1000 + i;
      const issue = n % 10_000;
      envelopes.push({
        event: {
          eventId: n.toString(16).padStart(32, '0'),
          timestamp: now - (n % 720) * 3_600_000,
          level: 'error',
          platform: 'javascript',
          environment: issue % 3 ? 'production' : 'development',
          release: `app@1.${issue % 7}.0`,
          url: `http://localhost:3000/page/${issue % 500}`,
          title: `TypeError: bug number ${issue}`,
          culprit: `handler${issue % 100}(app/routes/page-${issue % 40}.tsx)`,
          message: `TypeError: bug number ${issue}\nwhile handling order ${issue * 7}`,
          // Every event a server failure's digest of its own.
          digest: n.toString(16).padStart(10, '0'),
          hashes: [`hash-${issue}`],
          groupingConfig: 'newstyle:2023-01-11',
          tags: [
            ['browser', `Chrome ${150 + (n % 7)}`],
            ['os', n % 2 ? 'Linux' : 'Windows'],
            ['url', `/page/${issue % 500}`],
          ],
          payload,
        },
        sessions: [],
        counts: { event: 1 },
      });
    }
    db.ingest(envelopes, now);
  }
  db.close();
}

/** `n` random lower-case letters; cheap, so that the bench's client leaves the cores to the server. */
function randomLetters(n) {
  const bytes = randomBytes(n);
  for (let i = 0; i < n; i++) bytes[i] = 97 + (bytes[i] % 26);
  return bytes.toString('latin1');
}

/** An event that opens an issue of its own; `tagged`: 30 random 200-character tags, a release. */
function newIssueEnvelope(tagged) {
  const id = crypto.randomUUID().replaceAll('-', '');
  const random = randomLetters;
  const event = {
    event_id: id,
    timestamp: Date.now() / 1000,
    platform: 'javascript',
    level: 'error',
    release: tagged ? `flood@${random(12)}` : 'app@1.0.0',
    ...(tagged
      ? { tags: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`t${i}`, random(200)])) }
      : {}),
    exception: { values: [{ type: 'FloodError', value: random(24) }] },
  };
  const body = JSON.stringify(event);
  return Buffer.from(
    `${JSON.stringify({ event_id: id, dsn: DSN })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(body) })}\n${body}\n`,
  );
}

/** New issues for `seconds`, 32 in flight from 16 addresses, a fresh envelope each. */
async function ingestNewIssues(port, seconds, tagged, onEach = () => {}) {
  const statuses = new Map();
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  let sent = 0;
  const worker = async (w) => {
    while (performance.now() < until) {
      const n = sent++;
      const status = await post(
        port,
        newIssueEnvelope(tagged),
        `127.0.3.${1 + ((w + n) % CLIENTS)}`,
      );
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      onEach();
    }
  };
  await Promise.all(Array.from({ length: 32 }, (_, w) => worker(w)));
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: (statuses.get(200) ?? 0) / elapsed, statuses: Object.fromEntries(statuses) };
}

/**
 * The server process's CPU time so far (both threads, user and system), ms; undefined where
 * /proc is not there. Per event stored it is a figure the other load on a shared machine moves
 * far less than a rate.
 */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (USER_HZ, 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** `flood` run against `server`, with the server's CPU ms per event stored. */
async function withCpu(server, flood) {
  const before = cpuMsOf(server.pid);
  const result = await flood();
  const after = cpuMsOf(server.pid);
  const stored = result.statuses[200] ?? 0;
  const cpu =
    before === undefined || after === undefined || stored === 0
      ? ''
      : `, server CPU ${((after - before) / stored).toFixed(2)} ms/event`;
  return { ...result, cpu };
}

function onDisk(dir) {
  const size = (file) => (existsSync(file) ? statSync(file).size : 0);
  return size(join(dir, 'inbox.sqlite')) + size(join(dir, 'inbox.sqlite-wal'));
}

/** `count` issues of one event each, written straight into the database. */
function seedIssues(dir, count, { maxMb, tagged = false } = {}) {
  mkdirSync(dir, { recursive: true });
  const db = openInboxDatabase(join(dir, 'inbox.sqlite'), { maxEvents: 100_000, maxMb });
  const now = Date.now();
  const payload = JSON.stringify(JSON.parse(errorEnvelope(2_000, 0).toString().split('\n')[2]));
  const tag = (n, i) => `${n}-${i}-`.padEnd(200, 'abcdefghijklmnopqrstuvwxyz'[(n + i) % 26]);
  for (let batch = 0; batch < count / 1000; batch++) {
    const envelopes = Array.from({ length: 1000 }, (_, i) => {
      const n = batch * 1000 + i;
      return {
        event: {
          eventId: n.toString(16).padStart(32, '0'),
          timestamp: now,
          level: 'error',
          platform: 'javascript',
          environment: 'production',
          release: tagged ? `flood@${n}` : 'app@1.0.0',
          url: `http://localhost:3000/page/${n % 500}`,
          title: `TypeError: bug number ${n}`,
          culprit: 'handler(app/routes/about.tsx)',
          hashes: [`seeded-${n}`],
          groupingConfig: 'newstyle:2023-01-11',
          tags: tagged
            ? Array.from({ length: 30 }, (_, i) => [`t${i}`, tag(n, i)])
            : [['browser', 'Chrome 156']],
          payload,
        },
        sessions: [],
        counts: { event: 1 },
      };
    });
    db.ingest(envelopes, now);
  }
  const { storedEvents } = db.totals();
  db.checkpoint();
  db.close();
  return storedEvents;
}

const scratch = [];
/** A directory for an inbox, deleted when the bench ends: each holds up to a few hundred MB. */
function scratchInbox(prefix) {
  const parent = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(parent);
  return join(parent, 'inbox');
}
process.on('exit', () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const rows = [];
const print = (what, figure, floor, target) => rows.push([what, figure, floor, target]);
// The table is printed however the run ends: what was measured before a failure still counts.
process.on('exit', () => {
  const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => String(row[i]).length), 6));
  for (const row of [['', 'figure', 'floor, same run', 'target'], ...rows]) {
    console.log(row.map((cell, i) => String(cell).padEnd(widths[i])).join('  |  '));
  }
});

// 1 and 3: ingest, and the event loop meanwhile.
if (runs('ingest')) {
  const dir = scratchInbox('bench-inbox-');
  const server = await startServer({
    env: { MONITORING_INBOX_DIR: dir, LOAD_SHEDDING_LAG_MS: '0' },
  });
  const sink = await bareSink();
  try {
    await ingest(server.port, 1); // warm: the ingest thread, the JIT
    const floor = await ingest(sink.port, INGEST_SECONDS);
    const stalls = watchStalls(server.port);
    const ours = await ingest(server.port, INGEST_SECONDS);
    const slowest = await stalls();
    print(
      'ingest, ~50 KB error events, 64 in flight',
      `${ours.perSecond.toFixed(0)}/s ${JSON.stringify(ours.statuses)}`,
      `bare node:http sink ${floor.perSecond.toFixed(0)}/s`,
      '≥ 500/s',
    );
    print(
      'longest event-loop stall during ingest (server-side)',
      `${slowest.toFixed(1)} ms`,
      '',
      'no stall > 50 ms',
    );

    // 2: beside pages.
    const alone = await pageLoad(server.port, '/about');
    const paced = ingest(server.port, 6, { inFlight: 16, perSecond: 250 });
    const busy = await pageLoad(server.port, '/about');
    const beside = await paced;
    print('/about p99, -c16, alone', `${alone.p99} ms (${alone.rps.toFixed(0)} req/s)`, '', '');
    print(
      '/about p99, -c16, with ingest',
      `${busy.p99} ms (${busy.rps.toFixed(0)} req/s, ${busy.non2xx} non-2xx), ingest ${beside.perSecond.toFixed(0)}/s`,
      `${(busy.p99 / alone.p99).toFixed(2)}x alone`,
      '≥ 200/s, p99 ≤ 1.5x alone',
    );
  } finally {
    await sink.close();
    await server.stop();
  }
}

// 4: reads over a large inbox.
if (runs('reads') || ONLY === 'search') {
  const dir = scratchInbox('bench-inbox-large-');
  const seededAt = performance.now();
  seedLargeInbox(dir);
  const seedSeconds = (performance.now() - seededAt) / 1000;
  if (runs('reads')) await pageReads(dir, seedSeconds);
  searchLatency(dir);
}

/** 4's pages over the seeded inbox, through the server. */
async function pageReads(dir, seedSeconds) {
  const env = {
    MONITORING_INBOX_DIR: dir,
    MONITORING_INBOX_TRUST_LOOPBACK: 'true',
    MONITORING_INBOX_MAX_EVENTS: '200000',
    MONITORING_INBOX_MAX_MB: String(LARGE_INBOX_MAX_MB),
  };
  const server = await startServer({ env });
  try {
    const first = await sequential(server.port, '/errors', 1);
    print(
      'first /errors after a start (10,000 issues, 100,000 events)',
      `${first.p50.toFixed(0)} ms`,
      `seeded in ${seedSeconds.toFixed(1)} s`,
      '≤ 1 s',
    );
    const floor = await sequential(server.port, '/about');
    const stalls = watchStalls(server.port);
    for (const [what, path] of [
      ['/errors (last seen)', '/errors'],
      ['/errors?sort=count', '/errors?sort=count'],
      ['/errors?q=number 42 (title, culprit and page)', '/errors?q=number%2042'],
      ['/errors?q=/page/42 (a page)', '/errors?q=%2Fpage%2F42'],
      ['/errors?environment=development&page=20', '/errors?environment=development&page=20'],
      ['/errors?q=<a digest> (bare)', `/errors?q=${(98_765).toString(16).padStart(10, '0')}`],
      [
        '/errors?q=is:unresolved browser:"Chrome 152"',
        '/errors?q=is%3Aunresolved%20browser%3A%22Chrome%20152%22',
      ],
      ["an issue's page", '/errors/issues/4242'],
    ]) {
      const read = await sequential(server.port, path);
      print(
        `${what}, sequential`,
        `p50 ${read.p50.toFixed(1)} ms, p99 ${read.p99.toFixed(1)} ms`,
        `/about p50 ${floor.p50.toFixed(1)}, p99 ${floor.p99.toFixed(1)} ms`,
        'p99 ≤ 50 ms',
      );
    }
    print(
      'longest event-loop stall during reads (server-side)',
      `${(await stalls()).toFixed(1)} ms`,
      '',
      'no stall > 50 ms',
    );
  } finally {
    await server.stop();
  }
}

/**
 * Search alone, on the store (issue 33): each query's listIssues (a page of 50 and the counts),
 * 200 times, beside the plain list read the same way (the floor).
 */
function searchLatency(dir) {
  const db = openInboxDatabase(join(dir, 'inbox.sqlite'), {
    maxEvents: 200_000,
    maxMb: LARGE_INBOX_MAX_MB,
    readonly: true,
  });
  const timed = (search) => {
    const times = [];
    for (let i = 0; i < 200; i++) {
      const at = performance.now();
      const list = db.listIssues({
        sort: 'last-seen',
        page: 1,
        pageSize: 50,
        now: Date.now(),
        search,
      });
      times.push(performance.now() - at);
      if (list.problems.length > 0) throw new Error(`${search}: ${list.problems.join('; ')}`);
    }
    times.sort((a, b) => a - b);
    return {
      p50: times[100],
      p99: times[198],
      found: db.listIssues({ sort: 'last-seen', page: 1, pageSize: 50, now: Date.now(), search })
        .total,
    };
  };
  try {
    const floor = timed('');
    for (const query of [
      (4_242).toString(16).padStart(10, '0'), // a bare digest: the event's, exactly
      `digest:${(99_999).toString(16).padStart(10, '0')}`,
      'number 4242', // free text: title, culprit, message
      'order 29694', // free text in one issue's message only (past its title)
      '/page/42', // free text: a page
      'is:unresolved',
      'is:regressed',
      'release:app@1.3.0',
      'environment:development level:error',
      'browser:"Chrome 152"',
      '!os:Linux',
      'user:id:42',
      'is:unresolved release:app@1.3.0 browser:"Chrome 152" handler42',
    ]) {
      const read = timed(query);
      print(
        `search ${query} (${read.found} issues), the store`,
        `p50 ${read.p50.toFixed(2)} ms, p99 ${read.p99.toFixed(2)} ms`,
        `the plain list p50 ${floor.p50.toFixed(2)}, p99 ${floor.p99.toFixed(2)} ms`,
        'p99 ≤ 50 ms',
      );
    }
  } finally {
    db.close();
  }
}

// 5: the store's bounds.
if (runs('bounds')) {
  /** New issues into a fresh empty inbox for INGEST_SECONDS: the floor of the ingest beside it. */
  const intoEmpty = async (tagged) => {
    const dir = scratchInbox('bench-inbox-empty-');
    const server = await startServer({
      env: { MONITORING_INBOX_DIR: dir, LOAD_SHEDDING_LAG_MS: '0' },
    });
    try {
      await ingestNewIssues(server.port, 1, tagged);
      return await withCpu(server, () => ingestNewIssues(server.port, INGEST_SECONDS, tagged));
    } finally {
      await server.stop();
    }
  };

  const dir = scratchInbox('bench-inbox-50k-');
  const seededAt = performance.now();
  const stored = seedIssues(dir, 50_000);
  const seedSeconds = (performance.now() - seededAt) / 1000;
  print(
    'file size per stored event (50,000 issues, one ~2 KB event each)',
    `${(onDisk(dir) / stored / 1024).toFixed(1)} KiB`,
    `seeded in ${seedSeconds.toFixed(1)} s`,
    '',
  );
  const floor = await intoEmpty(false);
  const server = await startServer({
    env: {
      MONITORING_INBOX_DIR: dir,
      LOAD_SHEDDING_LAG_MS: '0',
      MONITORING_INBOX_MAX_EVENTS: '100000',
    },
  });
  try {
    await ingestNewIssues(server.port, 1, false);
    const ours = await withCpu(server, () => ingestNewIssues(server.port, INGEST_SECONDS, false));
    print(
      'ingest of new issues with 50,000 issues stored',
      `${ours.perSecond.toFixed(0)}/s ${JSON.stringify(ours.statuses)}${ours.cpu}`,
      `the same into an empty inbox ${floor.perSecond.toFixed(0)}/s${floor.cpu}`,
      '',
    );
  } finally {
    await server.stop();
  }
}
if (runs('bounds') || ONLY === 'cap') {
  const capMb = Number(process.env.BENCH_INBOX_MAX_MB ?? 32);
  // The floor: the same flood into an empty inbox far from its cap (nothing to evict).
  const emptyDir = scratchInbox('bench-inbox-empty-');
  const empty = await startServer({
    env: { MONITORING_INBOX_DIR: emptyDir, LOAD_SHEDDING_LAG_MS: '0' },
  });
  let floor;
  try {
    await ingestNewIssues(empty.port, 1, true);
    floor = await withCpu(empty, () => ingestNewIssues(empty.port, INGEST_SECONDS, true));
  } finally {
    await empty.stop();
  }
  const dir = scratchInbox('bench-inbox-cap-');
  // Filled to the cap before the flood: every issue the flood opens evicts an older one.
  const seeded = seedIssues(dir, Math.ceil((capMb * 1024 * 1024) / 8_000 / 1000) * 1000, {
    maxMb: capMb,
    tagged: true,
  });
  const server = await startServer({
    env: {
      MONITORING_INBOX_DIR: dir,
      LOAD_SHEDDING_LAG_MS: '0',
      MONITORING_INBOX_MAX_MB: String(capMb),
    },
  });
  let flood;
  let largest = onDisk(dir);
  try {
    let answered = 0;
    flood = await withCpu(server, () =>
      ingestNewIssues(server.port, INGEST_SECONDS, true, () => {
        if (++answered % 25 === 0) largest = Math.max(largest, onDisk(dir));
      }),
    );
    largest = Math.max(largest, onDisk(dir));
  } finally {
    await server.stop();
  }
  // Every issue stored (one event each) is there, or was evicted to keep the file within the cap.
  const after = openInboxDatabase(join(dir, 'inbox.sqlite'), { maxEvents: 100_000, maxMb: capMb });
  const { issues } = after.totals();
  after.close();
  const evicted = seeded + (flood.statuses[200] ?? 0) - issues;
  print(
    `flood of new tagged issues at the cap (MONITORING_INBOX_MAX_MB=${capMb}), evicting`,
    `${flood.perSecond.toFixed(0)}/s ${JSON.stringify(flood.statuses)}${flood.cpu}; ${evicted} issues evicted; largest file + WAL ${(largest / 1024 / 1024).toFixed(1)} MiB`,
    `the same into an empty inbox ${floor.perSecond.toFixed(0)}/s${floor.cpu}`,
    '≥ 200/s, within the cap',
  );
}

// 6: the event cap.
if (runs('event-cap')) {
  const EVENTS = 60_000;
  const seeded = scratchInbox('bench-inbox-events-');
  mkdirSync(seeded, { recursive: true });
  const db = openInboxDatabase(join(seeded, 'inbox.sqlite'), {
    maxEvents: 10_000_000,
    maxMb: 4096,
  });
  const now = Date.now();
  const payload = JSON.stringify(JSON.parse(errorEnvelope(2_000, 0).toString().split('\n')[2]));
  for (let batch = 0; batch < EVENTS / 1000; batch++) {
    db.ingest(
      Array.from({ length: 1000 }, (_, i) => {
        const n = batch * 1000 + i;
        return {
          event: {
            eventId: n.toString(16).padStart(32, '0'),
            timestamp: now,
            level: 'error',
            platform: 'javascript',
            environment: 'production',
            release: 'app@1.0.0',
            url: 'http://localhost:3000/page',
            title: `TypeError: bug number ${n % (EVENTS / 10)}`,
            culprit: 'handler(app/routes/about.tsx)',
            hashes: [`seeded-${n % (EVENTS / 10)}`],
            groupingConfig: 'newstyle:2023-01-11',
            tags: [['browser', 'Chrome 156']],
            payload,
          },
          sessions: [],
          counts: { event: 1 },
        };
      }),
      now,
    );
  }
  db.checkpoint();
  db.close();
  const rateAt = async (maxEvents) => {
    const dir = scratchInbox('bench-inbox-events-');
    cpSync(seeded, dir, { recursive: true });
    const server = await startServer({
      env: {
        MONITORING_INBOX_DIR: dir,
        LOAD_SHEDDING_LAG_MS: '0',
        MONITORING_INBOX_MAX_EVENTS: String(maxEvents),
        MONITORING_INBOX_MAX_MB: '4096',
      },
    });
    try {
      await ingestNewIssues(server.port, 1, false);
      return await ingestNewIssues(server.port, INGEST_SECONDS, false);
    } finally {
      await server.stop();
    }
  };
  const below = await rateAt(10 * EVENTS);
  const at = await rateAt(EVENTS);
  print(
    `ingest of new issues at MONITORING_INBOX_MAX_EVENTS (${EVENTS.toLocaleString('en')} events stored, each evicting one)`,
    `${at.perSecond.toFixed(0)}/s ${JSON.stringify(at.statuses)}`,
    `below the cap ${below.perSecond.toFixed(0)}/s ${JSON.stringify(below.statuses)}`,
    'not slower than below the cap',
  );
}

// 7: alerts cost ingest nothing measurable.
if (runs('alerts')) {
  const hook = await bareSink();
  const rates = async (extra) => {
    const server = await startServer({
      env: {
        MONITORING_INBOX_DIR: scratchInbox('bench-inbox-alerts-'),
        LOAD_SHEDDING_LAG_MS: '0',
        ...extra,
      },
    });
    try {
      await ingest(server.port, 1); // warm: the ingest thread, the JIT
      const repeats = await ingest(server.port, INGEST_SECONDS);
      const fresh = await ingestNewIssues(server.port, INGEST_SECONDS, false);
      return { repeats, fresh };
    } finally {
      await server.stop();
    }
  };
  try {
    // Interleaved, the best of two each: on a shared machine the order alone moves a rate.
    const runsOf = { without: [], withHook: [] };
    for (let round = 0; round < 2; round++) {
      runsOf.without.push(await rates({}));
      runsOf.withHook.push(
        await rates({ MONITORING_ALERT_WEBHOOK_URL: `http://127.0.0.1:${hook.port}/hook` }),
      );
    }
    const best = (list, part) =>
      list.map((run) => run[part]).reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
    const without = {
      repeats: best(runsOf.without, 'repeats'),
      fresh: best(runsOf.without, 'fresh'),
    };
    const withHook = {
      repeats: best(runsOf.withHook, 'repeats'),
      fresh: best(runsOf.withHook, 'fresh'),
    };
    print(
      'ingest of repeats (~50 KB events), a webhook configured',
      `${withHook.repeats.perSecond.toFixed(0)}/s ${JSON.stringify(withHook.repeats.statuses)}`,
      `no webhook ${without.repeats.perSecond.toFixed(0)}/s`,
      'within noise of no webhook',
    );
    print(
      'ingest of new issues (each raises an alert), a webhook configured',
      `${withHook.fresh.perSecond.toFixed(0)}/s ${JSON.stringify(withHook.fresh.statuses)}`,
      `no webhook ${without.fresh.perSecond.toFixed(0)}/s`,
      'within noise of no webhook',
    );
  } finally {
    await hook.close();
  }
}
