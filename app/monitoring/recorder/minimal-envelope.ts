/**
 * A report's event written by hand, for the one case where it must leave without the SDK: the
 * tab is closing (or the app's scripts never ran) and the SDK never loaded. As small as it can
 * be: each field is one the SDK writes for the same report, with the same value, and
 * tests/unit/monitoring/minimal-envelope.test.ts holds it to the SDK's own output, field by
 * field, so an SDK upgrade that changes the format fails there. Everything else (breadcrumbs,
 * linked causes, contexts, debug ids) is the SDK's, when it loads.
 * Part of the inline recorder (recorder.ts).
 */
import { isInAppFrame, MAX_STACK_FRAMES } from '../in-app';
import type { Report, SdkMetadata } from './recorder';

/** What an envelope says besides the report: the site config's monitoring part, and the browser. */
export interface EnvelopeContext {
  dsn: string;
  environment: string;
  release: string;
  userAgent: string;
  sentAt: Date;
  /** The SDK's name and version (`SDK_METADATA`), as if it had sent the envelope. */
  sdk: SdkMetadata;
}

/** The SDK's name for a frame without one (UNKNOWN_FUNCTION in @sentry/core). */
const UNKNOWN_FUNCTION = '?';

export interface Frame {
  filename: string;
  function: string;
  in_app: boolean;
  lineno: number;
  colno: number;
}

/** The event, as the SDK's client would send it for this report (the fields kept). */
export function minimalEvent(report: Report, context: Omit<EnvelopeContext, 'dsn' | 'sentAt'>) {
  const base = {
    event_id: report.id,
    timestamp: report.at,
    platform: 'javascript',
    environment: context.environment,
    release: context.release,
    request: { url: report.url, headers: { 'User-Agent': context.userAgent } },
    sdk: context.sdk,
  };
  if (report.kind === 'message') {
    return {
      ...base,
      level: report.level ?? 'info',
      message: report.message,
      ...(report.tags ? { tags: report.tags } : {}),
      ...(report.extra ? { extra: report.extra } : {}),
    };
  }
  let frames = report.kind === 'asset' ? [] : parseStack(report.stack ?? '');
  if (frames.length === 0 && report.kind === 'error' && report.filename) {
    // As the SDK's global handler does for an error without a stack: where the browser says.
    frames = [
      {
        filename: report.filename,
        function: UNKNOWN_FUNCTION,
        in_app: isInAppFrame(report.filename),
        lineno: report.lineno ?? 0,
        colno: report.colno ?? 0,
      },
    ];
  }
  return {
    ...base,
    level: 'error',
    exception: {
      values: [
        {
          type: report.name ?? 'Error',
          value: report.message,
          ...(frames.length > 0 ? { stacktrace: { frames } } : {}),
          mechanism: report.mechanism,
        },
      ],
    },
  };
}

/** One envelope, one event: what the tunnel forwards as it would the SDK's. */
export function minimalEnvelope(report: Report, context: EnvelopeContext): string {
  const header = {
    event_id: report.id,
    sent_at: context.sentAt.toISOString(),
    sdk: context.sdk,
    dsn: context.dsn,
  };
  return [
    JSON.stringify(header),
    JSON.stringify({ type: 'event' }),
    JSON.stringify(minimalEvent(report, context)),
  ].join('\n');
}

/** V8's stack line (Node, Chromium): "    at fn (url:1:2)" or "    at url:1:2". */
export const V8_FRAME = /^\s*at (?:(.+?) \()?(.+?):(\d+):(\d+)\)?$/;
/** Gecko's and WebKit's (Firefox, Safari): "fn@url:1:2". */
export const GECKO_FRAME = /^(.*?)@(.+?):(\d+):(\d+)$/;

/** The frames of a stack, oldest first as Sentry orders them, at most MAX_STACK_FRAMES. */
export function parseStack(stack: string): Frame[] {
  const frames: Frame[] = [];
  for (const line of stack.split('\n')) {
    const match = V8_FRAME.exec(line) ?? GECKO_FRAME.exec(line);
    if (!match) continue;
    const [, name, filename = '', lineno, colno] = match;
    frames.push({
      filename,
      function: name && name !== '<anonymous>' ? name : UNKNOWN_FUNCTION,
      in_app: isInAppFrame(filename),
      lineno: Number(lineno),
      colno: Number(colno),
    });
  }
  return frames.reverse().slice(-MAX_STACK_FRAMES);
}
