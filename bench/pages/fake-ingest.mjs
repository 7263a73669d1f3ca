// A fake Sentry ingest on 127.0.0.1 for our server in Sentry mode: it reads each envelope and
// answers 200, and counts them so that the bench can say the browser's reports went through.
// It runs in the bench's own process: only the browser section sends to it, never the load.
import { createServer } from 'node:http';

export async function startFakeIngest() {
  let envelopes = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      envelopes += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"00000000000000000000000000000000"}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    // The DSN is also the tunnel's allow-list (CONTRACT: SENTRY_DSN).
    dsn: `http://benchkey@127.0.0.1:${port}/1`,
    envelopes: () => envelopes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
