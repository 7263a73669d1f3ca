// Slow clients on raw sockets (node:net), what fetch cannot be: each sends a request's start,
// then one byte a second. Run directly (by startSlowClients), this file is the child process
// that holds them, so that the parent's probes and RSS samples run on a free event loop.
//   body:    POST /monitoring with Content-Length 1 MiB and ~1 KB of a valid envelope, then the
//            body trickles (the tunnel's answer: 408 at SENTRY_TUNNEL_BODY_TIMEOUT_MS);
//   headers: a GET whose headers never end (slowloris; the server's answer: 408 at 10 s);
//   upload:  POST /monitoring with Content-Length 1 MiB, all of it but the last byte at once,
//            then nothing (a stalled upload: held whole in local inbox mode).
// `from`: the clients' own addresses (127.x.y.z: each a client of its own), in turn; `reconnect`:
// a client the server closed opens again a second later, as an attacker's would; `dsn`: the
// envelopes' (the local inbox's by default).
//   server-function: a public server function's POST (the inbox sign-in) with Content-Length
//            60,000 whose body trickles: before decision 1012 each call held a server-function
//            place (the server's answer: 408 at REQUEST_TIMEOUT_MS, 30 s);
//   header-line: POST /monitoring with Content-Length 60,000 whose header line (`{"dsn":"`)
//            never ends: before decision 1011 it was read outside the client's 8 slots.
// Messages to the parent: { opened } once all have connected, { closed } after 'close'.
import { connect } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { forkNode, spawnNode } from './children.mjs';

const SELF = fileURLToPath(import.meta.url);
const LOCAL_DSN = 'http://localinbox@localhost/1';
// tests/support/server-function-paths.ts's SIGN_IN_TO_INBOX_FN.
const SIGN_IN_FN =
  '/_server/app_server_inbox_inbox_functions_ts--signInToInbox_createServerFn_handler';
const BATCH = 100;

/** The child holding `count` clients of `kind` against 127.0.0.1:`port`. */
export function startSlowClients({ port, kind, count, fdLimit, from, reconnect, dsn }) {
  const config = JSON.stringify({ port, kind, count, from, reconnect, dsn });
  return fdLimit === undefined
    ? forkNode(SELF, [config])
    : spawnNode([SELF, config], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], fdLimit });
}

function requestStart(port, kind, dsn = LOCAL_DSN) {
  if (kind === 'headers') {
    return `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: slow\r\nX-Slow: a`;
  }
  if (kind === 'server-function') {
    return (
      `POST ${SIGN_IN_FN}?createServerFn HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 60000\r\n\r\n{"data":{"token":"'
    );
  }
  if (kind === 'header-line') {
    return (
      `POST /monitoring?o=0&p=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
      'Content-Type: application/x-sentry-envelope\r\nContent-Length: 60000\r\n\r\n{"dsn":"'
    );
  }
  const head = `${JSON.stringify({ dsn })}\n{"type":"event"}\n{"message":"`;
  return (
    `POST /monitoring?o=0&p=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n` +
    `Content-Type: application/x-sentry-envelope\r\nContent-Length: ${1024 * 1024}\r\n\r\n` +
    head.padEnd(kind === 'upload' ? 1024 * 1024 - 1 : 1024, 'a')
  );
}

/** One client: resolves once connected (or failed); `state` says what the server did. */
function open(port, start, localAddress) {
  const state = {
    socket: undefined,
    connectedAt: 0,
    status: undefined,
    closedByServerAt: 0,
    closedByClient: false,
  };
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress });
    state.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      state.status ??= /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 'other';
    });
    // 'end' or a reset before the client destroyed it: the server's doing.
    const byServer = () => {
      if (!state.closedByClient) state.closedByServerAt ||= performance.now();
    };
    socket.on('end', byServer);
    socket.on('error', () => {
      byServer();
      resolve(state);
    });
    socket.once('connect', () => {
      state.connectedAt = performance.now();
      socket.write(start);
      resolve(state);
    });
  });
}

async function hold({ port, kind, count, from = [undefined], reconnect = false, dsn }) {
  const start = requestStart(port, kind, dsn);
  const clients = [];
  let stopping = false;
  let reopened = 0;
  const openAs = async (index) => {
    const client = await open(port, start, from[index % from.length]);
    clients.push(client);
    if (reconnect) {
      client.socket.once('close', () => {
        if (stopping) return;
        setTimeout(() => {
          if (stopping) return;
          reopened += 1;
          openAs(index);
        }, 1_000);
      });
    }
    return client;
  };
  // In batches: thousands of SYNs at once would overflow the listen backlog (511), and that
  // measures the kernel, not the server.
  for (let i = 0; i < count; i += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => openAs(i + j));
    await Promise.all(batch);
  }
  const live = () =>
    clients.filter((client) => !client.socket.destroyed && !client.closedByServerAt);
  const connected = clients.filter((client) => client.connectedAt).length;
  // A stalled upload sends nothing more: its last byte would complete it.
  const trickle = setInterval(() => {
    if (kind === 'upload') return;
    for (const client of live()) client.socket.write('a');
  }, 1_000);
  // A refused connection is reset at once: a second later, what is left is what the server holds.
  setTimeout(() => {
    process.send({ opened: { connected, held: live().length, failed: count - connected } });
  }, 1_000);

  process.on('message', async (message) => {
    if (message !== 'close') return;
    stopping = true;
    clearInterval(trickle);
    const stillOpen = live().length;
    const closing = clients.map(
      (client) =>
        new Promise((done) => (client.socket.closed ? done() : client.socket.once('close', done))),
    );
    for (const client of clients) {
      client.closedByClient = true;
      client.socket.destroy();
    }
    await Promise.race([Promise.all(closing), new Promise((done) => setTimeout(done, 5_000))]);
    process.send({ closed: { ...report(clients, stillOpen), reopened } }, () =>
      process.disconnect(),
    );
  });
}

/** What the server did with the clients: its answers, and when it closed them. */
function report(clients, stillOpen) {
  const answers = {};
  const closeSeconds = [];
  for (const client of clients) {
    if (client.status) answers[client.status] = (answers[client.status] ?? 0) + 1;
    if (client.closedByServerAt && client.connectedAt) {
      closeSeconds.push((client.closedByServerAt - client.connectedAt) / 1000);
    }
  }
  closeSeconds.sort((a, b) => a - b);
  return {
    answers,
    stillOpen,
    closedByServer: closeSeconds.length,
    firstClose: closeSeconds[0],
    lastClose: closeSeconds.at(-1),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.on('disconnect', () => process.exit(0));
  await hold(JSON.parse(process.argv[2]));
}
