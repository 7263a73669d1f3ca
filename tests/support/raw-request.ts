/**
 * One HTTP request over node:http, for what fetch will not send or keep: fetch drops a `Host`
 * header of its own (the rebound-DNS tests need exactly that), and it decodes a compressed
 * body (the precompressed-asset tests compare the bytes that came over the wire).
 */
import { request } from 'node:http';
import type { Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as it came over the wire, not decoded. */
  body: Buffer;
}

export function rawRequest(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Uint8Array;
    /** The connection to send it on (one inside a network namespace); a new one by default. */
    connect?: () => Socket;
    timeoutMs?: number;
  } = {},
): Promise<RawAnswer> {
  return new Promise((done, fail) => {
    const options = {
      method: init.method ?? 'GET',
      headers: init.headers,
      ...(init.connect ? { createConnection: init.connect } : {}),
      ...(init.timeoutMs === undefined ? {} : { timeout: init.timeoutMs }),
    };
    const req = request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        done({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString(), body });
      });
      res.on('error', fail);
    });
    req.on('error', fail);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${init.timeoutMs} ms`)));
    req.end(init.body);
  });
}
