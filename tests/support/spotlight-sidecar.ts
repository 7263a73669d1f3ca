/**
 * Starts the real Spotlight sidecar (tests/fixtures/spotlight-sidecar.ts) and reads back what
 * it received the way its UI does: the server-sent events of GET /stream, one per envelope,
 * each the envelope as JSON: [header, [[itemHeader, item], …]].
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { stopChild, watchOutput } from './built-server';

const CHILD = resolve(import.meta.dirname, '../fixtures/spotlight-sidecar.ts');

export type SidecarEnvelope = [
  header: Record<string, unknown>,
  items: Array<[itemHeader: Record<string, unknown>, item: unknown]>,
];

export interface SpotlightSidecar {
  /** Where SDKs post envelopes: SENTRY_SPOTLIGHT's value. */
  streamUrl: string;
  /** The first envelope the sidecar has received (before or after the call) that matches. */
  waitForEnvelope(
    matches: (envelope: SidecarEnvelope) => boolean,
    timeoutMs?: number,
  ): Promise<SidecarEnvelope>;
  stop(): Promise<void>;
}

export async function startSpotlightSidecar(): Promise<SpotlightSidecar> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, SENTRY_SPOTLIGHT: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { waitForOutput, exited } = watchOutput(child);
  const stop = () => stopChild(child, exited);
  let line: string;
  try {
    line = await waitForOutput(/Spotlight sidecar on 127\.0\.0\.1 \d+/, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const streamUrl = `http://127.0.0.1:${line.split(' ').pop()}/stream`;
  return { streamUrl, waitForEnvelope: (m, t) => waitForEnvelope(streamUrl, m, t), stop };
}

/** Reads the sidecar's event stream (it replays what it holds first) until one matches. */
async function waitForEnvelope(
  streamUrl: string,
  matches: (envelope: SidecarEnvelope) => boolean,
  timeoutMs = 30_000,
): Promise<SidecarEnvelope> {
  const seen: string[] = [];
  const response = await fetch(streamUrl, {
    headers: { accept: 'text/event-stream' },
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.body) throw new Error(`GET ${streamUrl} gave no body`);
  const decoder = new TextDecoder();
  let text = '';
  const reader = response.body.getReader();
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      text += decoder.decode(read.value, { stream: true });
      let end = text.indexOf('\n\n');
      while (end !== -1) {
        const data = text
          .slice(0, end)
          .split('\n')
          .filter((field) => field.startsWith('data:'))
          .map((field) => field.slice('data:'.length).trimStart())
          .join('\n');
        text = text.slice(end + 2);
        end = text.indexOf('\n\n');
        if (!data) continue;
        seen.push(data.slice(0, 200));
        const envelope = JSON.parse(data) as SidecarEnvelope;
        if (matches(envelope)) return envelope;
      }
    }
  } catch (error) {
    throw new Error(
      `The sidecar received no matching envelope (${String(error)}). Received:\n${seen.join('\n')}`,
    );
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  throw new Error(`The sidecar's stream ended. Received:\n${seen.join('\n')}`);
}
