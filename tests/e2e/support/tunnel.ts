/**
 * Until the server's tunnel (POST /monitoring) is merged, the browser tests stand in for it:
 * `connectTunnel` routes the page's tunnel requests to the fake ingest the way the tunnel does
 * (the DSN's envelope endpoint, Sentry's status and rate-limit headers back, 504 after the
 * tunnel timeout, 502 when the ingest is unreachable). Once the real tunnel is in the build,
 * set STAND_IN to false: the tests stay as they are and run against the server's tunnel.
 */
import type { Page } from '@playwright/test';
import { envelopeUrlOf, isDsn, parseDsn } from '../../../app/monitoring/dsn';
import type { FakeSentry } from '../../fixtures/fake-sentry';

/** True while the build has no POST /monitoring of its own. */
const STAND_IN = true;

/** The tunnel timeout the browser tests run with (SENTRY_TUNNEL_TIMEOUT_MS). */
export const TUNNEL_TIMEOUT_MS = 1_500;

const FORWARDED_HEADERS = ['retry-after', 'x-sentry-rate-limits', 'content-type'];

export interface Tunnel {
  /** Cuts or restores the page's network (Playwright's offline mode reaches routed requests too). */
  setOffline(offline: boolean): Promise<void>;
}

/** `dsn`: the server's SENTRY_DSN, whose envelope endpoint the tunnel forwards to. */
export async function connectTunnel(
  page: Page,
  ingest: FakeSentry,
  sentryDsn = ingest.dsn(),
): Promise<Tunnel> {
  if (!STAND_IN) return { setOffline: (value) => page.context().setOffline(value) };
  const dsn = parseDsn(sentryDsn);
  if (!isDsn(dsn)) throw new Error('fake ingest DSN does not parse');
  const upstream = envelopeUrlOf(dsn);
  let offline = false;
  await page.route('**/monitoring?**', async (route) => {
    // Routed requests are answered even in offline mode: fail them as the network would.
    if (offline) return route.abort('internetdisconnected');
    const request = route.request();
    if (request.method() !== 'POST') return route.fulfill({ status: 405 });
    try {
      const response = await fetch(upstream, {
        method: 'POST',
        body: new Uint8Array(request.postDataBuffer() ?? Buffer.alloc(0)),
        signal: AbortSignal.timeout(TUNNEL_TIMEOUT_MS),
      });
      const headers: Record<string, string> = {};
      for (const name of FORWARDED_HEADERS) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      await route.fulfill({
        status: response.status,
        headers,
        body: Buffer.from(await response.arrayBuffer()),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      await route.fulfill({ status: timedOut ? 504 : 502 }).catch(() => {});
    }
  });
  return {
    setOffline: async (value) => {
      offline = value;
      await page.context().setOffline(value);
    },
  };
}
