/**
 * A webhook receiver on 127.0.0.1 for the alert tests: it keeps every POST (path, headers,
 * parsed JSON) and answers as the test says (a status with headers and body, a redirect, a
 * hang, a reset), so a test can prove what a Slack or Discord hook would have received.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from './wait-for';

export interface ReceivedPost {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

/**
 * How the sink answers one post: a reply, `hang` (never answers), `reset` (drops the socket) or
 * `endless` (200, then a body that never ends).
 */
export type SinkAnswer =
  | { status: number; headers?: Record<string, string>; body?: string | Buffer }
  | 'hang'
  | 'reset'
  | 'endless';

export interface WebhookSink {
  /** The sink's origin, `http://127.0.0.1:<port>`; a hook's URL is this plus any path. */
  origin: string;
  posts: ReceivedPost[];
  /** Answers every post from now on with what `answer` returns (200 by default). */
  answerWith(answer: (post: ReceivedPost, index: number) => SinkAnswer): void;
  /** Resolves with the posts once there are at least `count`. */
  waitForPosts(count: number, timeoutMs?: number): Promise<ReceivedPost[]>;
  close(): Promise<void>;
}

export async function startWebhookSink(port = 0): Promise<WebhookSink> {
  const posts: ReceivedPost[] = [];
  let answer: (post: ReceivedPost, index: number) => SinkAnswer = () => ({ status: 200 });
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        body = { unparsed: Buffer.concat(chunks).toString('utf8') };
      }
      const post = { path: req.url ?? '/', headers: req.headers, body };
      posts.push(post);
      const reply = answer(post, posts.length - 1);
      if (reply === 'hang') {
        hanging.add(res);
        return;
      }
      if (reply === 'reset') {
        req.socket.destroy();
        return;
      }
      if (reply === 'endless') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const more = () => {
          while (!res.destroyed && res.write(chunk)) {
            // until the socket's buffer is full
          }
        };
        res.on('drain', more);
        hanging.add(res);
        more();
        return;
      }
      res.writeHead(reply.status, reply.headers ?? {});
      res.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${address.port}`,
    posts,
    answerWith(next) {
      answer = next;
    },
    waitForPosts: (count, timeoutMs = 20_000) =>
      waitFor(
        () => `${count} webhook posts (${posts.length} so far)`,
        () => (posts.length >= count ? posts : undefined),
        { timeoutMs },
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
