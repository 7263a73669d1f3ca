/**
 * Email alerts as the operator sets them up (MONITORING_SMTP_URL, MONITORING_ALERT_EMAIL_TO,
 * MONITORING_ALERT_EMAIL_FROM), read without nodemailer so the environment module stays a leaf
 * and a bad value stops the server at start. The channel that sends is ./email-channel.server.ts.
 */

/** Where alerts are handed over, from `smtp://` or `smtps://[user:password@]host[:port]`. */
export interface SmtpServer {
  /** `smtps://`: TLS from the first byte. `smtp://`: STARTTLS when the server offers it. */
  secure: boolean;
  host: string;
  port: number;
  /** From the URL's `user:password@`, percent-decoded. The password is shown nowhere. */
  auth?: { user: string; password: string };
}

export interface EmailAlertConfig {
  smtp: SmtpServer;
  /** Every alert goes, as one message, to all of them. */
  to: string[];
  from: string;
}

/** Submission ports, as nodemailer defaults them: 587 (STARTTLS) and 465 (implicit TLS). */
const DEFAULT_PORT = { 'smtp:': 587, 'smtps:': 465 } as const;

/**
 * Reads MONITORING_SMTP_URL. An error never repeats the value as given: it may hold a password,
 * and the message goes to the log. It shows the URL with the password starred instead.
 */
export function smtpServerOf(value: string): SmtpServer | { error: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { error: 'is not a URL: expected smtp://[user:password@]host[:port] or smtps://…' };
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    // Only the scheme: `user:password@host` parses as the scheme `user:` with the rest a path.
    const scheme = value.startsWith(`${url.protocol}//`) ? `, got "${url.protocol}//"` : '';
    return { error: `must start with smtp:// or smtps://${scheme}` };
  }
  const shown = redactedUrl(url);
  // WHATWG URL parses an unknown scheme's host leniently: "smtp://a b" keeps its space.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host || !/^[a-z0-9.:-]+$/i.test(host)) {
    return { error: `has no host name, got "${shown}"` };
  }
  if ((url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    return { error: `takes no path, query or fragment, got "${shown}"` };
  }
  const port = url.port ? Number(url.port) : DEFAULT_PORT[url.protocol];
  if (!(port >= 1 && port <= 65535)) {
    return { error: `has no valid port, got "${shown}"` };
  }
  if (url.password && !url.username) {
    return { error: `has a password without a user name, got "${shown}"` };
  }
  return {
    secure: url.protocol === 'smtps:',
    host,
    port,
    ...(url.username
      ? {
          auth: {
            user: decodeURIComponent(url.username),
            password: decodeURIComponent(url.password),
          },
        }
      : {}),
  };
}

function redactedUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password) copy.password = '***';
  return copy.href;
}

/**
 * A bare address, `name@domain`: no display name, no comment, nothing a header could split on.
 * A loose check on purpose: the SMTP server is the judge of what it accepts.
 */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+$/.test(value);
}

/**
 * The sender when MONITORING_ALERT_EMAIL_FROM is unset: at PUBLIC_URL's host, else (and for an
 * IPv6 address, which an address would need as a `[IPv6:…]` literal) at localhost.
 */
export function defaultAlertSender(publicUrl: URL | undefined): string {
  const host = publicUrl?.hostname;
  return `alerts@${host && !host.startsWith('[') ? host : 'localhost'}`;
}
