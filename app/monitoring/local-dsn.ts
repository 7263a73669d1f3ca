/**
 * The DSN of local inbox mode (no SENTRY_DSN): the browser reports to it, and the tunnel
 * recognises it and stores envelopes in the local inbox instead of forwarding them.
 */
export const LOCAL_INBOX_DSN = 'http://localinbox@localhost/1';
