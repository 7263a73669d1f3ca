import { describe, expect, it } from 'vitest';
import { runBuiltServerToExit, startBuiltServer } from '#tests/support/built-server';

describe('server start', () => {
  it('stops with one message naming every bad variable and why', async () => {
    const { code, output } = await runBuiltServerToExit({
      PORT: 'eighty',
      SENTRY_DSN: 'https://no-project.example.com',
      SENTRY_TUNNEL_TIMEOUT_MS: '0',
    });
    expect(code).toBe(1);
    expect(output).toContain('Invalid environment, the server cannot start:');
    expect(output).toContain('PORT: must be a whole number, got "eighty"');
    expect(output).toContain('SENTRY_DSN: is not a Sentry DSN');
    expect(output).toContain('SENTRY_TUNNEL_TIMEOUT_MS: must be at least 1');
    expect(output).not.toContain('Listening on');
  });

  it('says where errors go in one line at start', async () => {
    const server = await startBuiltServer();
    try {
      expect(server.output()).toMatch(
        /\[monitoring\] local inbox mode \(no SENTRY_DSN\): errors are kept in \S+; read them at http:\/\/127\.0\.0\.1:\d+\/errors/,
      );
    } finally {
      await server.stop();
    }
  });
});
