// The benchmark's floor: a bare node:http streaming proxy that pipes each request to the fake
// ingest over kept-alive connections and pipes the answer back, with no checks at all.
//
// bench/tunnel.mjs runs it twice: in a process of its own, and loaded with `--import` into
// the built server next to our tunnel (when BENCH_PROXY_INGEST_PORT is set), so that the floor
// is also measured in the very process state our tunnel runs in.
import { Agent, createServer, request } from 'node:http';

/** Starts the proxy on 127.0.0.1 (a free port) and resolves with that port. */
export function startBareProxy(ingestPort) {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: ingestPort,
        path: '/api/1/envelope/',
        method: 'POST',
        agent,
        headers: {
          'content-type': req.headers['content-type'] ?? 'text/plain',
          'content-length': req.headers['content-length'],
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] });
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

const ingestPort = process.env.BENCH_PROXY_INGEST_PORT;
if (ingestPort) {
  const port = await startBareProxy(Number(ingestPort));
  console.log(`[bench] in-process proxy on port ${port}`);
}
