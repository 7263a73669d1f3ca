/**
 * One HTTP request over node:http, for what fetch will not send: fetch drops a `Host` header
 * of its own, and the rebound-DNS tests need exactly that.
 */
import { request } from 'node:http';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array } = {},
): Promise<RawAnswer> {
  return new Promise((done, fail) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        done({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString(),
        }),
      );
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(init.body);
  });
}
