// Envelopes the benches send, as the browser SDK would: one definition for every bench.

/** A ~6 KB error event envelope, like the browser SDK sends for an exception with a stack. */
export function errorEnvelope(dsn) {
  const eventId = 'a'.repeat(32);
  const frames = Array.from({ length: 46 }, (_, i) => ({
    filename: `https://example.com/_build/assets/client-${i}.js`,
    function: `handleClick${i}`,
    lineno: 100 + i,
    colno: 12,
    in_app: true,
  }));
  const event = {
    event_id: eventId,
    level: 'error',
    platform: 'javascript',
    exception: { values: [{ type: 'Error', value: 'Something broke', stacktrace: { frames } }] },
    request: {
      url: 'https://example.com/',
      headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)' },
    },
  };
  const body = JSON.stringify(event);
  return `${JSON.stringify({ event_id: eventId, dsn, sent_at: new Date().toISOString() })}\n${JSON.stringify({ type: 'event', length: Buffer.byteLength(body) })}\n${body}`;
}

/** The smallest valid envelope the SDK sends (a client report): a probe of the tunnel itself. */
export function clientReportEnvelope(dsn) {
  return `${JSON.stringify({ dsn })}\n{"type":"client_report"}\n{"discarded_events":[]}`;
}
