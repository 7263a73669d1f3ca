/**
 * Sentry DSNs, shared by the browser (tunnel URL) and the server (tunnel allow-list), and the
 * local inbox's own DSN, which both sides recognise.
 * A DSN looks like `https://<public key>@o<org>.ingest.<region>.sentry.io[:port][/path]/<project>`.
 * Framework-free on purpose: plain functions over strings.
 * Not @sentry/core's makeDsn on the server: it prints a string it cannot parse to the console (the
 * tunnel parses DSNs from request input), takes `…/2?x=1` and `…/2abc` for project 2, and gives
 * no reason for the start-up message; the browser's first bundle has no @sentry/core to share.
 */

export interface Dsn {
  protocol: 'http' | 'https';
  publicKey: string;
  host: string;
  /** '' when the DSN names no port. */
  port: string;
  /** Path before the project id, without a trailing slash ('' for most DSNs). */
  path: string;
  projectId: string;
}

/** What the tunnel query names: organisation, project and, for sentry.io, region. */
export interface TunnelTarget {
  o: string;
  p: string;
  r?: string;
}

/**
 * The DSN of local inbox mode (no SENTRY_DSN): the browser reports to it, and the tunnel
 * recognises it and stores envelopes in the local inbox instead of forwarding them.
 */
export const LOCAL_INBOX_DSN = 'http://localinbox@localhost/1';

const PROJECT_ID = /^\d{1,20}$/;

/** Parses a DSN, or returns an error message saying what is wrong with it. */
export function parseDsn(input: string): Dsn | { error: string } {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { error: 'not a URL' };
  }
  const protocol = url.protocol.slice(0, -1);
  if (protocol !== 'http' && protocol !== 'https') {
    return { error: 'scheme must be http or https' };
  }
  if (!url.username) return { error: 'no public key before the @' };
  if (url.search || url.hash) return { error: 'must not have a query or fragment' };
  const segments = url.pathname.split('/');
  const projectId = segments.pop() ?? '';
  if (!PROJECT_ID.test(projectId)) return { error: 'must end with a numeric project id' };
  let publicKey: string;
  try {
    publicKey = decodeURIComponent(url.username);
  } catch {
    // Request input reaches here (the tunnel parses envelope headers): never throw.
    return { error: 'public key is not valid percent-encoding' };
  }
  return {
    protocol,
    publicKey,
    host: url.hostname,
    port: url.port,
    path: segments.join('/').replace(/\/+$/, ''),
    projectId,
  };
}

export function isDsn(value: Dsn | { error: string }): value is Dsn {
  return !('error' in value);
}

/**
 * (o, p, r) of a DSN: `o` is the number of the host's `o<digits>` label (0 without one,
 * as for self-hosted Sentry), `r` the region label after `ingest` on sentry.io hosts.
 */
export function tunnelTargetOf(dsn: Dsn): TunnelTarget {
  const labels = dsn.host.split('.');
  const org = /^o(\d{1,20})$/.exec(labels[0] ?? '');
  const target: TunnelTarget = { o: org ? (org[1] as string) : '0', p: dsn.projectId };
  const ingest = labels.indexOf('ingest');
  const region = ingest >= 0 ? labels[ingest + 1] : undefined;
  if (org && region && /^[a-z]{2}$/.test(region)) target.r = region;
  return target;
}

/**
 * The organisation a DSN's host names (`o123.ingest.sentry.io` → "123"); undefined for a host
 * that names none, as self-hosted Sentry's do (the tunnel's `o=0` there is not an organisation).
 */
export function organisationOf(dsn: Dsn): string | undefined {
  return /^o(\d{1,20})$/.exec(dsn.host.split('.')[0] ?? '')?.[1];
}

/** The same-origin tunnel URL the browser SDK posts to for this DSN. */
export function tunnelUrlOf(dsn: Dsn, base = '/monitoring'): string {
  const { o, p, r } = tunnelTargetOf(dsn);
  return `${base}?o=${o}&p=${p}${r ? `&r=${r}` : ''}`;
}

/** Sentry's envelope endpoint for this DSN: the only place the tunnel ever forwards to. */
export function envelopeUrlOf(dsn: Dsn): string {
  return `${dsn.protocol}://${formatHost(dsn)}${dsn.path}/api/${dsn.projectId}/envelope/`;
}

/** Two DSNs name the same project when key, scheme, host, port, path and project agree. */
export function sameDsn(a: Dsn, b: Dsn): boolean {
  return (
    a.protocol === b.protocol &&
    a.publicKey === b.publicKey &&
    a.host === b.host &&
    a.port === b.port &&
    a.path === b.path &&
    a.projectId === b.projectId
  );
}

export function formatDsn(dsn: Dsn): string {
  return `${dsn.protocol}://${encodeURIComponent(dsn.publicKey)}@${formatHost(dsn)}${dsn.path}/${dsn.projectId}`;
}

function formatHost(dsn: Dsn): string {
  return dsn.port ? `${dsn.host}:${dsn.port}` : dsn.host;
}
