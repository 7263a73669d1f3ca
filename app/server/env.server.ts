/**
 * The server's configuration: `process.env` parsed once, at start, with one valibot schema.
 * A bad value stops the server with one message that names every bad variable and why.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import * as v from 'valibot';
import { type Dsn, isDsn, parseDsn } from '#app/monitoring/dsn';
import { LOCAL_INBOX_DSN } from '#app/monitoring/filters';
import { processShared } from '#app/start-1.120/process-shared.server';
import packageJson from '../../package.json';
import {
  cgroupCpuDirsOf,
  cpuQuotaOf,
  type WebConcurrency,
  workerCountOf,
} from './cluster/worker-count';
import { spotlightSidecarUrl } from './failures/sentry-client.server';
import { parseSpikeRule, type SpikeRule } from './inbox/alerts/alert-policy';
import {
  defaultAlertSender,
  type EmailAlertConfig,
  isEmailAddress,
  type SmtpServer,
  smtpServerOf,
} from './inbox/alerts/email-config';
import { DEFAULT_INBOX_MAX_MB, MAX_INBOX_MAX_MB, MIN_INBOX_MAX_MB } from './inbox/store/store-cap';
import {
  NO_TRUSTED_PROXIES,
  PROXY_RANGE_NAMES,
  type TrustedProxies,
  trustedProxiesOf,
} from './security/client-key';

const emptyAsUnset = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const integer = (min: number, max: number, fallback: number) =>
  v.pipe(
    v.optional(v.string(), String(fallback)),
    v.trim(),
    v.regex(/^\d+$/, (issue) => `must be a whole number, got "${issue.input}"`),
    v.transform(Number),
    v.number(),
    v.minValue(min, `must be at least ${min}`),
    v.maxValue(max, `must be at most ${max}`),
  );

const dsn = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed = parseDsn(dataset.value);
    if (isDsn(parsed)) return parsed;
    addIssue({
      message: `is not a Sentry DSN (${parsed.error}), got "${dataset.value}"${quotesHint(dataset.value)}`,
    });
    return NEVER;
  }),
);

/** A value pasted with its quotes (`SENTRY_DSN="'https://…'"`) is the usual mistake: say so. */
function quotesHint(value: string): string {
  return /^\s*(["'`]).*\1\s*$/.test(value) ? '; remove the quotes around it' : '';
}

/** A comma-separated value's entries, each trimmed, empty ones dropped. */
const commaSeparated = v.transform((list: string) =>
  list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

const dsnList = v.pipe(v.string(), commaSeparated, v.array(dsn));

const flag = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.picklist(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'], 'must be true or false'),
  v.transform((value) => ['1', 'true', 'yes', 'on'].includes(value)),
);

const ratio = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^(0(\.\d+)?|1(\.0+)?|\.\d+)$/, 'must be a number from 0 to 1'),
  v.transform(Number),
);

const publicUrl = v.pipe(
  v.string(),
  v.trim(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    let url: URL;
    try {
      url = new URL(dataset.value);
    } catch {
      addIssue({ message: `is not a URL, got "${dataset.value}"` });
      return NEVER;
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      addIssue({ message: `must be an http:// or https:// URL, got "${dataset.value}"` });
      return NEVER;
    }
    return url;
  }),
);

/** SENTRY_SPOTLIGHT as the Sentry SDKs read it: a flag, or the sidecar's URL (spotlight/sidecar-url.ts). */
const spotlight = v.pipe(
  v.string(),
  v.trim(),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const read = spotlightSidecarUrl(dataset.value);
    if (typeof read !== 'object') return read;
    addIssue({ message: read.error });
    return NEVER;
  }),
);

/** Host names as a browser sends them in `Host` (name or IP, optional port), lower-cased. */
const hostList = v.pipe(
  v.string(),
  commaSeparated,
  v.array(
    v.pipe(
      v.string(),
      v.toLowerCase(),
      v.regex(
        /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(:\d{1,5})?$/,
        (issue) => `"${issue.input}" is not a host name (a name or IP, with an optional :port)`,
      ),
    ),
  ),
);

/** TRUSTED_PROXIES: comma-separated entries as proxy-addr reads them, each checked on its own. */
const trustedProxies = v.pipe(
  v.string(),
  commaSeparated,
  v.rawTransform(({ dataset, addIssue, NEVER }): TrustedProxies => {
    const entries = dataset.value;
    const bad = entries.filter((entry) => {
      try {
        trustedProxiesOf([entry]);
        return false;
      } catch {
        return true;
      }
    });
    if (bad.length === 0) return trustedProxiesOf(entries);
    addIssue({
      message: `${bad.map((entry) => `"${entry}"`).join(', ')} ${bad.length === 1 ? 'is not' : 'are not'} an IP address, a CIDR (10.0.0.0/8) or one of ${PROXY_RANGE_NAMES.join(', ')}`,
    });
    return NEVER;
  }),
);

/** MONITORING_SMTP_URL: its error shows the URL with the password starred (./inbox/alerts/email-config.ts). */
const smtpUrl = v.pipe(
  v.string(),
  v.trim(),
  v.rawTransform(({ dataset, addIssue, NEVER }): SmtpServer => {
    const server = smtpServerOf(dataset.value);
    if (!('error' in server)) return server;
    addIssue({ message: server.error });
    return NEVER;
  }),
);

/**
 * MONITORING_ALERT_WEBHOOK_URL: comma-separated http(s) URLs. A bad one is named by its host
 * only: the rest of a webhook's URL is its secret, and this message goes to the log.
 */
const webhookUrls = v.pipe(
  v.string(),
  commaSeparated,
  v.rawTransform(({ dataset, addIssue, NEVER }): URL[] => {
    const urls: URL[] = [];
    const entries = dataset.value;
    for (const [index, entry] of entries.entries()) {
      const which = `entry ${index + 1}`;
      let url: URL;
      try {
        url = new URL(entry);
      } catch {
        addIssue({ message: `${which} is not a URL` });
        continue;
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        addIssue({ message: `${which} (${url.host}) must be an http:// or https:// URL` });
      } else if (url.username !== '' || url.password !== '') {
        addIssue({ message: `${which} (${url.host}) must not carry user:password@` });
      } else urls.push(url);
    }
    return urls.length === entries.length ? urls : NEVER;
  }),
);

/** MONITORING_ALERT_SPIKE: `COUNT/WINDOW` (./inbox/alerts/alert-policy.ts). */
const spikeRule = v.pipe(
  v.string(),
  v.rawTransform(({ dataset, addIssue, NEVER }): SpikeRule => {
    const rule = parseSpikeRule(dataset.value);
    if (!('error' in rule)) return rule;
    addIssue({ message: rule.error });
    return NEVER;
  }),
);

const emailAddress = v.pipe(
  v.string(),
  v.trim(),
  v.check(isEmailAddress, (issue) => `"${issue.input}" is not an email address (name@example.com)`),
);

const emailList = v.pipe(
  v.string(),
  commaSeparated,
  v.array(emailAddress),
  v.minLength(1, 'names no address'),
);

/** More would be a typo: each worker is a whole server process. */
const MAX_WORKERS = 256;

/** `auto` (one worker per core), or a number of workers; 1 is one plain process. */
const webConcurrency = v.pipe(
  v.string(),
  v.trim(),
  v.toLowerCase(),
  v.rawTransform(({ dataset, addIssue, NEVER }): WebConcurrency => {
    const value = dataset.value;
    if (value === 'auto') return 'auto';
    const count = /^\d{1,4}$/.test(value) ? Number(value) : Number.NaN;
    if (count >= 1 && count <= MAX_WORKERS) return count;
    addIssue({
      message: `must be "auto" or a whole number of workers from 1 to ${MAX_WORKERS}, got "${value}"`,
    });
    return NEVER;
  }),
);
const EnvSchema = v.object({
  // 0 asks for any free port (the tests use it).
  PORT: integer(0, 65535, 3000),
  HOST: v.optional(v.pipe(v.string(), v.trim(), v.nonEmpty()), '0.0.0.0'),
  NODE_ENV: v.optional(v.string(), 'production'),
  SENTRY_DSN: v.optional(dsn),
  SENTRY_TUNNEL_ALLOWED_DSNS: v.optional(dsnList, ''),
  SENTRY_TUNNEL_MAX_BYTES: integer(1024, 1024 ** 3, 1024 * 1024),
  SENTRY_TUNNEL_TIMEOUT_MS: integer(1, 600_000, 10_000),
  SENTRY_TUNNEL_BODY_TIMEOUT_MS: integer(1, 600_000, 10_000),
  SENTRY_ENVIRONMENT: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(64))),
  SENTRY_RELEASE: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
  SENTRY_TRACES_SAMPLE_RATE: v.optional(ratio),
  MONITORING_INBOX_DIR: v.optional(v.pipe(v.string(), v.trim()), '.data/inbox'),
  // Raw events the inbox keeps in all; every issue's counts are kept regardless.
  MONITORING_INBOX_MAX_EVENTS: integer(100, 10_000_000, 10_000),
  // The inbox database's cap on disk, WAL included, in MiB (decision 1000).
  MONITORING_INBOX_MAX_MB: v.pipe(
    integer(0, MAX_INBOX_MAX_MB, DEFAULT_INBOX_MAX_MB),
    v.minValue(
      MIN_INBOX_MAX_MB,
      `must be at least ${MIN_INBOX_MAX_MB} (MiB: the database and its write-ahead log together)`,
    ),
  ),
  ENABLE_EXAMPLE_ROUTES: v.optional(flag),
  // Long enough that guessing is hopeless; it is compared in constant time.
  MONITORING_INBOX_TOKEN: v.optional(
    v.pipe(v.string(), v.trim(), v.minLength(16, 'must be at least 16 characters')),
  ),
  // The operator's word that no reverse proxy runs on this machine in front of the app: then
  // requests from this machine read the inbox without signing in (decision 0306).
  MONITORING_INBOX_TRUST_LOOPBACK: v.optional(flag, 'false'),
  PUBLIC_URL: v.optional(publicUrl),
  SENTRY_SPOTLIGHT: v.optional(spotlight, 'false'),
  ALLOWED_HOSTS: v.optional(hostList),
  // 0 turns load shedding off.
  LOAD_SHEDDING_LAG_MS: integer(0, 60_000, 100),
  // The page cache's bound in memory, MiB; 0 turns it off (decision 1300).
  PAGE_CACHE_MAX_MB: integer(0, 4096, 16),
  // How long an idle kept-alive connection stays open. Behind a load balancer that reuses
  // connections, set it above the balancer's idle timeout, or it meets connections we closed.
  KEEP_ALIVE_TIMEOUT_MS: integer(1_000, 600_000, 5_000),
  // 0 turns the per-client cap off (a trusted proxy's connections are never capped per client).
  MAX_CONNECTIONS_PER_CLIENT: integer(0, 1_000_000, 1_000),
  // Proxies whose X-Forwarded-For is believed (decision 1020); unset: none, the peer is the client.
  TRUSTED_PROXIES: v.optional(trustedProxies),
  // Worker processes (node:cluster): `auto` in production, one process otherwise (decision 0620).
  WEB_CONCURRENCY: v.optional(webConcurrency),
  // Alerts (local inbox mode, issue 34): webhooks, and the opt-in spike rule.
  MONITORING_ALERT_WEBHOOK_URL: v.optional(webhookUrls),
  MONITORING_ALERT_SPIKE: v.optional(spikeRule),
  // The usual comma-separated debug namespaces; `tunnel` logs every forwarded envelope.
  DEBUG: v.optional(v.string(), ''),
  // Email alerts (docs/alerts.md): the SMTP server and the recipients come together.
  MONITORING_SMTP_URL: v.optional(smtpUrl),
  MONITORING_ALERT_EMAIL_TO: v.optional(emailList),
  MONITORING_ALERT_EMAIL_FROM: v.optional(emailAddress),
});

/** The SMTP server and the recipients only work together: one set without the other is named. */
const ServerEnvSchema = v.pipe(
  EnvSchema,
  v.forward(
    v.partialCheck(
      [['MONITORING_SMTP_URL'], ['MONITORING_ALERT_EMAIL_TO']],
      (env) => !env.MONITORING_SMTP_URL || !!env.MONITORING_ALERT_EMAIL_TO,
      'is set without MONITORING_ALERT_EMAIL_TO: email alerts need both',
    ),
    ['MONITORING_SMTP_URL'],
  ),
  v.forward(
    v.partialCheck(
      [['MONITORING_SMTP_URL'], ['MONITORING_ALERT_EMAIL_TO']],
      (env) => !env.MONITORING_ALERT_EMAIL_TO || !!env.MONITORING_SMTP_URL,
      'is set without MONITORING_SMTP_URL: email alerts need both',
    ),
    ['MONITORING_ALERT_EMAIL_TO'],
  ),
);

export type MonitoringMode =
  | { kind: 'local-inbox'; inboxDir: string }
  | { kind: 'sentry'; dsn: Dsn };

/**
 * Who may read and clear the local inbox: anyone (development without a token), or visitors
 * who signed in with the token (MONITORING_INBOX_TOKEN, or one made for this run), and with
 * MONITORING_INBOX_TRUST_LOOPBACK also requests from this machine (decision 0306).
 */
export type InboxAccess =
  | { kind: 'open' }
  | {
      kind: 'token';
      token: string;
      /** Made at start for this run (no MONITORING_INBOX_TOKEN): the start line prints it. */
      generated: boolean;
      trustLoopback: boolean;
    };

/**
 * Spotlight (https://spotlightjs.com): in development, a copy of every server and browser event
 * also goes to a running sidecar. Never in production (docs/decisions/0930-*.md).
 */
export type SpotlightSetting =
  | { kind: 'off' }
  | { kind: 'sidecar'; url: string }
  /** SENTRY_SPOTLIGHT was set under NODE_ENV=production: ignored, with a warning at start. */
  | { kind: 'ignored-in-production' };

export interface ServerConfig {
  port: number;
  host: string;
  production: boolean;
  monitoring: MonitoringMode;
  /**
   * Every DSN the tunnel accepts: SENTRY_DSN (or, in local inbox mode, the local inbox DSN)
   * first, then SENTRY_TUNNEL_ALLOWED_DSNS.
   */
  tunnelAllowedDsns: Dsn[];
  /** DEBUG names `tunnel`: log every forwarded envelope, not only the rejected ones. */
  tunnelDebug: boolean;
  tunnelMaxBytes: number;
  tunnelTimeoutMs: number;
  /** How long the whole envelope may take to arrive (then 408). */
  tunnelBodyTimeoutMs: number;
  environment: string;
  release: string;
  tracesSampleRate: number;
  exampleRoutes: boolean;
  inboxAccess: InboxAccess;
  /** PUBLIC_URL, when set: the app's address as visitors see it. */
  publicUrl?: URL;
  /**
   * The `Host` values state-changing requests may carry, lower-cased; 'any' when nothing
   * says which (development, or production without PUBLIC_URL and ALLOWED_HOSTS).
   */
  allowedHosts: readonly string[] | 'any';
  /** Send Strict-Transport-Security: the app is served over https (PUBLIC_URL says so). */
  hsts: boolean;
  /** Event-loop lag past which new page requests get a 503; 0 is off. */
  loadSheddingLagMs: number;
  /** The page cache's bound in memory, bytes; 0 is off (PAGE_CACHE_MAX_MB). */
  pageCacheMaxBytes: number;
  /** Raw events the local inbox keeps (MONITORING_INBOX_MAX_EVENTS). */
  inboxMaxEvents: number;
  /** The inbox database's cap on disk, WAL included, MiB (MONITORING_INBOX_MAX_MB). */
  inboxMaxMb: number;
  /** How long an idle kept-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** Open connections one client address may hold; 0 is no cap of its own. */
  maxConnectionsPerClient: number;
  /** TRUSTED_PROXIES: whose X-Forwarded-For names the client (../security/client-key.ts). */
  trustedProxies: TrustedProxies;
  spotlight: SpotlightSetting;
  /** WEB_CONCURRENCY as set (`auto` by default in production, else 1). */
  webConcurrency: WebConcurrency;
  /**
   * The server's worker processes (WEB_CONCURRENCY resolved on this machine): 1 is one plain
   * process. Limits meant for the whole server are divided among them (../cluster/worker-count.ts).
   */
  workers: number;
  /** Email alerts, when MONITORING_SMTP_URL and MONITORING_ALERT_EMAIL_TO are set. */
  alertEmail?: EmailAlertConfig;
  /** MONITORING_ALERT_WEBHOOK_URL: secrets, never logged; a channel names its host only. */
  alertWebhookUrls: readonly URL[];
  /** MONITORING_ALERT_SPIKE, when set. */
  alertSpike?: SpikeRule;
}

export type EnvResult = { ok: true; config: ServerConfig } | { ok: false; message: string };

/** A token for this run when MONITORING_INBOX_TOKEN is unset: 32 random bytes, base64url. */
export function newInboxToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The machine's figures for `WEB_CONCURRENCY=auto` (./cluster/worker-count.ts): the cores this
 * process may run on, and the tightest CPU quota of its cgroup and the cgroup's parents.
 */
export function availableCores(): { cores: number; cpuQuota: number | undefined } {
  const { v2, v1 } = cgroupCpuDirsOf(readIfThere('/proc/self/cgroup') ?? '');
  const quotas = [
    ...v2.map((dir) => cpuQuotaOf({ cpuMax: readIfThere(`${dir}/cpu.max`) })),
    ...v1.map((dir) =>
      cpuQuotaOf({
        cfsQuotaUs: readIfThere(`${dir}/cpu.cfs_quota_us`),
        cfsPeriodUs: readIfThere(`${dir}/cpu.cfs_period_us`),
      }),
    ),
  ].filter((quota): quota is number => quota !== undefined);
  return {
    cores: availableParallelism(),
    cpuQuota: quotas.length > 0 ? Math.min(...quotas) : undefined,
  };
}

function readIfThere(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // not Linux, or no such cgroup controller: no quota known
  }
}

/**
 * Pure but for `newToken` and `machine`: parses an environment (process.env or a test's table)
 * into the server config. `newToken` makes the inbox token when production has none set;
 * `machine` gives the cores `WEB_CONCURRENCY=auto` counts.
 */
export function parseServerEnv(
  env: Record<string, string | undefined>,
  newToken: () => string = newInboxToken,
  machine: () => { cores: number; cpuQuota: number | undefined } = availableCores,
): EnvResult {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(EnvSchema.entries)) input[key] = emptyAsUnset(env[key]);
  const result = v.safeParse(ServerEnvSchema, input);
  if (!result.success) {
    const lines = result.issues.map((issue) => {
      const name = v.getDotPath(issue)?.split('.')[0] ?? 'environment';
      return `  ${name}: ${issue.message}`;
    });
    return {
      ok: false,
      message: `Invalid environment, the server cannot start:\n${[...new Set(lines)].join('\n')}`,
    };
  }
  const e = result.output;
  const production = e.NODE_ENV === 'production';
  const webConcurrency = e.WEB_CONCURRENCY ?? (production ? 'auto' : 1);
  const monitoring: MonitoringMode = e.SENTRY_DSN
    ? { kind: 'sentry', dsn: e.SENTRY_DSN }
    : { kind: 'local-inbox', inboxDir: e.MONITORING_INBOX_DIR };
  return {
    ok: true,
    config: {
      port: e.PORT,
      host: e.HOST,
      production,
      monitoring,
      tunnelAllowedDsns: [e.SENTRY_DSN ?? localInboxDsn(), ...e.SENTRY_TUNNEL_ALLOWED_DSNS],
      tunnelDebug: e.DEBUG.split(',').some((name) => name.trim() === 'tunnel'),
      tunnelMaxBytes: e.SENTRY_TUNNEL_MAX_BYTES,
      tunnelTimeoutMs: e.SENTRY_TUNNEL_TIMEOUT_MS,
      tunnelBodyTimeoutMs: e.SENTRY_TUNNEL_BODY_TIMEOUT_MS,
      environment: e.SENTRY_ENVIRONMENT ?? (production ? 'production' : 'development'),
      release: e.SENTRY_RELEASE ?? `${packageJson.name}@${packageJson.version}`,
      tracesSampleRate: e.SENTRY_TRACES_SAMPLE_RATE ?? (monitoring.kind === 'sentry' ? 0.1 : 1),
      exampleRoutes: e.ENABLE_EXAMPLE_ROUTES ?? !production,
      inboxAccess: inboxAccessOf(
        production,
        e.MONITORING_INBOX_TOKEN,
        e.MONITORING_INBOX_TRUST_LOOPBACK,
        newToken,
      ),
      ...(e.PUBLIC_URL ? { publicUrl: e.PUBLIC_URL } : {}),
      allowedHosts:
        e.ALLOWED_HOSTS ?? (production && e.PUBLIC_URL ? [e.PUBLIC_URL.host.toLowerCase()] : 'any'),
      hsts: e.PUBLIC_URL?.protocol === 'https:',
      loadSheddingLagMs: e.LOAD_SHEDDING_LAG_MS,
      pageCacheMaxBytes: e.PAGE_CACHE_MAX_MB * 1024 * 1024,
      inboxMaxEvents: e.MONITORING_INBOX_MAX_EVENTS,
      inboxMaxMb: e.MONITORING_INBOX_MAX_MB,
      keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
      maxConnectionsPerClient: e.MAX_CONNECTIONS_PER_CLIENT,
      trustedProxies: e.TRUSTED_PROXIES ?? NO_TRUSTED_PROXIES,
      spotlight: spotlightOf(production, e.SENTRY_SPOTLIGHT),
      webConcurrency,
      workers: workerCountOf(webConcurrency, machine()),
      ...(e.MONITORING_SMTP_URL && e.MONITORING_ALERT_EMAIL_TO
        ? {
            alertEmail: {
              smtp: e.MONITORING_SMTP_URL,
              to: e.MONITORING_ALERT_EMAIL_TO,
              from: e.MONITORING_ALERT_EMAIL_FROM ?? defaultAlertSender(e.PUBLIC_URL),
            },
          }
        : {}),
      alertWebhookUrls: e.MONITORING_ALERT_WEBHOOK_URL ?? [],
      ...(e.MONITORING_ALERT_SPIKE ? { alertSpike: e.MONITORING_ALERT_SPIKE } : {}),
    },
  };
}

function inboxAccessOf(
  production: boolean,
  token: string | undefined,
  trustLoopback: boolean,
  newToken: () => string,
): InboxAccess {
  if (token) return { kind: 'token', token, generated: false, trustLoopback };
  // Development stays open: it is where the newcomer's path starts.
  if (!production) return { kind: 'open' };
  return { kind: 'token', token: newToken(), generated: true, trustLoopback };
}

function spotlightOf(production: boolean, sidecarUrl: string | false): SpotlightSetting {
  if (!sidecarUrl) return { kind: 'off' };
  return production ? { kind: 'ignored-in-production' } : { kind: 'sidecar', url: sidecarUrl };
}

function localInboxDsn(): Dsn {
  const dsn = parseDsn(LOCAL_INBOX_DSN);
  if (!isDsn(dsn)) throw new Error(`LOCAL_INBOX_DSN is not a DSN: ${dsn.error}`);
  return dsn;
}

/** The parsed config of this process. Throws the full message when the environment is bad. */
export function serverConfig(): ServerConfig {
  // A bad environment throws before anything is kept: every call tells the same story. Kept
  // once per process, so every copy of this module sees the same token made for this run.
  return processShared('server-config', () => {
    const result = parseServerEnv(process.env);
    if (!result.ok) throw new Error(result.message);
    return result.config;
  });
}
