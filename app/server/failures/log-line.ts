/** Where on the server a failure happened. */
export type FailurePhase =
  | 'loader'
  | 'beforeLoad'
  | 'params'
  | 'search'
  | 'render'
  | 'server-function';

export interface FailureContext {
  phase: FailurePhase;
  /** Route id (`/sentry-example-page/ssr-error`) or server function id. */
  route: string;
  method: string;
  /** Path and query of the request. */
  url?: string;
}

export interface FailureLogRecord extends FailureContext {
  level: 'error';
  time: string;
  digest: string;
  /** The worker process that met it, when the server runs several (WEB_CONCURRENCY). */
  worker?: number;
  name: string;
  message: string;
  stack?: string;
}

/** The one JSON line an operator greps for. Pure; never throws, whatever was thrown. */
export function failureLogLine(
  error: unknown,
  digest: string,
  context: FailureContext,
  now: Date = new Date(),
  worker?: number,
): string {
  const record: FailureLogRecord = {
    level: 'error',
    time: now.toISOString(),
    digest,
    ...(worker === undefined ? {} : { worker }),
    ...context,
    ...errorFields(error),
  };
  return JSON.stringify(record);
}

function errorFields(error: unknown): { name: string; message: string; stack?: string } {
  try {
    if (error instanceof Error) {
      return { name: error.name, message: String(error.message), stack: error.stack };
    }
    return { name: typeof error, message: String(error) };
  } catch {
    return { name: typeof error, message: 'unprintable value' };
  }
}
