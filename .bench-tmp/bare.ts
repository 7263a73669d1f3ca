import { createServer } from 'node:http';
import { isDsn, parseDsn } from '../app/monitoring/dsn';
import { createAllowList } from '../app/server/tunnel/allow-list';
import { createTunnel } from '../app/server/tunnel/tunnel';
import { createUpstream } from '../app/server/tunnel/upstream';

const dsn = parseDsn('http://publickey@127.0.0.1:3999/1');
if (!isDsn(dsn)) throw new Error('dsn');
const tunnel = createTunnel({
  allowList: createAllowList([dsn]),
  maxBytes: 1024 * 1024,
  timeoutMs: 10000,
  bodyTimeoutMs: 10000,
  upstream: createUpstream(),
  storeLocally: async () => {},
  log: () => {},
  debug: false,
});
createServer((req, res) => {
  tunnel(req, res);
}).listen(3991, '127.0.0.1', () => console.log('ready'));
process.on('SIGINT', () => process.exit(0));
