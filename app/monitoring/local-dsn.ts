/**
 * The DSN of local inbox mode (no SENTRY_DSN): the browser SDK reports to it through the
 * tunnel (/monitoring?o=0&p=1), and the tunnel stores its envelopes in the local inbox
 * instead of forwarding them. Nothing ever connects to this host.
 */
export const LOCAL_INBOX_DSN = 'http://localinbox@localhost/1';
