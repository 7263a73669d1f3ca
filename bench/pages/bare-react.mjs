// The limit for npm run bench:pages: React 19's renderToPipeableStream on node:http, the same
// markup as the app's /about and / (local inbox mode), no router, no hydration scripts.
// Run as a child process (NODE_ENV=production for React's production build); prints
// "Listening on http://127.0.0.1:PORT" like the built servers. PORT=0 takes a free port.
import { createServer } from 'node:http';
import { createElement as h, Suspense, use } from 'react';
import { renderToPipeableStream } from 'react-dom/server';
import { nextRuntimeHealth } from './event-loop-sample.mjs';

function Document({ title, children }) {
  return h(
    'html',
    { lang: 'en' },
    h(
      'head',
      null,
      h('meta', { charSet: 'utf-8' }),
      h('meta', { name: 'viewport', content: 'width=device-width, initial-scale=1' }),
      h('title', null, title),
    ),
    h(
      'body',
      null,
      h(
        'nav',
        { className: 'nav', 'aria-label': 'Main' },
        h('a', { href: '/' }, 'Home'),
        h('a', { href: '/about' }, 'How errors are handled'),
      ),
      children,
    ),
  );
}

// Text copied from app/routes/about.tsx.
function About() {
  return h(
    'main',
    { className: 'page' },
    h('h1', null, 'How errors are handled'),
    h(
      'p',
      null,
      'Errors in the browser are reported through ',
      h('code', null, '/monitoring'),
      ", a tunnel on this site's own address, so ad blockers do not drop them. The tunnel forwards only to this app's own Sentry projects.",
    ),
    h(
      'p',
      null,
      "When a page fails you see a short, generic message with a digest, never the error's own text. The digest is the key that finds the full report in the server logs and in Sentry.",
    ),
    h(
      'p',
      null,
      'Without a Sentry account the app keeps errors in a local inbox on the server instead.',
    ),
  );
}

// app/routes/index.tsx in local inbox mode: the shell first, the health section streamed.
function Home() {
  // The same wait as the app's deferred health section.
  const health = nextRuntimeHealth();
  return h(
    'main',
    { className: 'page' },
    h('h1', null, 'tanstack-start-monitoring'),
    h('p', null, 'Version 0.1.0, environment ', h('strong', null, 'production'), '.'),
    h(
      'section',
      { 'aria-labelledby': 'monitoring-heading' },
      h('h2', { id: 'monitoring-heading' }, 'Monitoring'),
      h(
        'p',
        { 'data-testid': 'monitoring-mode' },
        'Local inbox mode: no Sentry project is configured, so errors are kept on this server, in the local inbox at ',
        h('a', { href: '/errors' }, '/errors'),
        '.',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'health-heading' },
      h('h2', { id: 'health-heading' }, 'Server health'),
      h(
        Suspense,
        { fallback: h('p', { className: 'muted' }, "Sampling the server's event loop…") },
        h(HealthReport, { health }),
      ),
    ),
  );
}

function HealthReport({ health: promise }) {
  const health = use(promise);
  return h(
    'div',
    { 'data-testid': 'health-report' },
    h(
      'dl',
      { className: 'facts' },
      h('dt', null, 'Event-loop delay (p50 / p99)'),
      h(
        'dd',
        null,
        `${health.eventLoopDelayP50Ms} ms / ${health.eventLoopDelayP99Ms} ms over ${health.windowMs} ms`,
      ),
      h('dt', null, 'Uptime'),
      h('dd', { 'data-testid': 'uptime' }, `${health.uptimeSeconds} s`),
    ),
    h('button', { type: 'button' }, 'Sample again'),
  );
}

const PAGES = {
  '/': () => h(Document, { title: 'Start Monitoring' }, h(Home)),
  '/about': () => h(Document, { title: 'How errors are handled · Start Monitoring' }, h(About)),
};

const server = createServer((req, res) => {
  const page = PAGES[new URL(req.url ?? '/', 'http://x').pathname];
  if (!page) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    return;
  }
  const stream = renderToPipeableStream(page(), {
    // Streaming as Start does for browsers: the shell goes out first.
    onShellReady() {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      stream.pipe(res);
    },
    onShellError() {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('Render failed');
    },
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`Listening on http://127.0.0.1:${server.address().port}`);
});
