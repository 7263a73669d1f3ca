/**
 * The email channel's policy, case by case: which of nodemailer's failures are worth a retry,
 * what the reason says, and when STARTTLS is required. The real server cases are in
 * email-channel.test.ts.
 */
import type { NodemailerError } from 'nodemailer/lib/errors';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EMAIL_TIMEOUTS,
  deliveryOfError,
  deliveryOfSent,
  passwordFormsOf,
  transportOptionsOf,
} from '#app/server/inbox/alerts/alert-delivery.server';

const SERVER = 'mail.example.com:587';

function failure(message: string, fields: Partial<NodemailerError>): NodemailerError {
  return Object.assign(new Error(message), fields);
}

function smtpReply(response: string, command: string): NodemailerError {
  const responseCode = Number(response.slice(0, 3));
  return failure(`failed: ${response}`, {
    code: command === 'AUTH PLAIN' ? 'EAUTH' : 'EENVELOPE',
    response,
    responseCode,
    permanent: responseCode >= 500 && responseCode !== 503,
    command,
  });
}

describe('deliveryOfError', () => {
  it.each<[string, NodemailerError, 'retry' | 'failed', string]>([
    [
      'a 4xx to RCPT TO',
      smtpReply('450 4.2.0 greylisted', 'RCPT TO'),
      'retry',
      'mail.example.com:587 answered 450 4.2.0 greylisted (RCPT TO)',
    ],
    [
      'a 5xx to RCPT TO',
      smtpReply('550 5.1.1 mailbox unavailable', 'RCPT TO'),
      'failed',
      'mail.example.com:587 answered 550 5.1.1 mailbox unavailable (RCPT TO)',
    ],
    [
      'a refused login',
      smtpReply('535 5.7.8 authentication failed', 'AUTH PLAIN'),
      'failed',
      'mail.example.com:587 answered 535 5.7.8 authentication failed (AUTH PLAIN)',
    ],
    [
      'a login refused for now',
      smtpReply('454 4.7.0 try again later', 'AUTH PLAIN'),
      'retry',
      'mail.example.com:587 answered 454 4.7.0 try again later (AUTH PLAIN)',
    ],
    [
      '503, a bad sequence that a new connection clears',
      smtpReply('503 5.5.1 bad sequence', 'DATA'),
      'retry',
      'mail.example.com:587 answered 503 5.5.1 bad sequence (DATA)',
    ],
    [
      'a 5xx greeting (a server refusing connections for now)',
      failure('Invalid greeting', {
        code: 'EPROTOCOL',
        response: '554 no service',
        responseCode: 554,
        permanent: true,
        command: 'CONN',
      }),
      'retry',
      'mail.example.com:587 answered 554 no service (greeting)',
    ],
    [
      'a refused connection',
      failure('connect ECONNREFUSED', {
        code: 'ESOCKET',
        originalCode: 'ECONNREFUSED',
        command: 'CONN',
      }),
      'retry',
      'mail.example.com:587 refused the connection',
    ],
    [
      'a reset connection mid-message',
      failure('read ECONNRESET', { code: 'ESOCKET', originalCode: 'ECONNRESET' }),
      'retry',
      'mail.example.com:587 reset the connection',
    ],
    [
      'a connection closed mid-message',
      failure('Connection closed unexpectedly', { code: 'ECONNECTION' }),
      'retry',
      'mail.example.com:587: Connection closed unexpectedly',
    ],
    [
      'a connection time-out',
      failure('Connection timeout', {
        code: 'ETIMEDOUT',
        timeoutType: 'CONNECT_TIMEOUT',
        command: 'CONN',
      }),
      'retry',
      'no connection to mail.example.com:587 in time',
    ],
    [
      'a silent server mid-message',
      failure('Timeout', { code: 'ETIMEDOUT', timeoutType: 'SOCKET_TIMEOUT', command: 'CONN' }),
      'retry',
      'mail.example.com:587 stopped answering',
    ],
    [
      'a host name that does not resolve',
      failure('getaddrinfo ENOTFOUND mail.example.com', { code: 'EDNS', command: 'CONN' }),
      'retry',
      'mail.example.com:587: getaddrinfo ENOTFOUND mail.example.com',
    ],
    [
      'a server that wants a login and got none',
      failure('Missing credentials for "PLAIN"', { code: 'ENOAUTH', command: 'API' }),
      'failed',
      'mail.example.com:587: Missing credentials for "PLAIN"',
    ],
    [
      'the sender giving up',
      failure('Message sending aborted', { code: 'EABORT' }),
      'retry',
      'cancelled before the server confirmed the message',
    ],
  ])('%s: %s', (_, error, outcome, reason) => {
    expect(deliveryOfError(error, SERVER)).toEqual({ outcome, reason });
  });

  it.each([
    ['as given', 'answered 535 bad password s3cr3t/pw'],
    ['percent-encoded', 'answered 535 bad password s3cr3t%2Fpw'],
    ['in base64', `answered 535 bad password ${Buffer.from('s3cr3t/pw').toString('base64')}`],
    [
      'inside an AUTH PLAIN answer',
      `answered 535 refused AUTH PLAIN ${Buffer.from('\0bot\0s3cr3t/pw').toString('base64')}`,
    ],
  ])('hides the password %s', (_, response) => {
    const error = failure(response, { code: 'EAUTH', command: 'AUTH PLAIN' });
    const delivery = deliveryOfError(
      error,
      SERVER,
      passwordFormsOf({
        secure: false,
        host: 'mail.example.com',
        port: 587,
        auth: { user: 'bot', password: 's3cr3t/pw' },
      }),
    );
    expect(delivery).toMatchObject({ outcome: 'failed' });
    const reason = delivery.outcome === 'sent' ? '' : delivery.reason;
    expect(reason).toContain('***');
    expect(reason).not.toContain('s3cr3t');
    expect(reason).not.toContain(Buffer.from('s3cr3t/pw').toString('base64'));
  });

  it('keeps a reason to one line of at most 200 characters', () => {
    const error = failure('x', {
      code: 'EENVELOPE',
      response: `550 ${'no '.repeat(200)}\r\nnext line`,
      responseCode: 550,
      permanent: true,
      command: 'RCPT TO',
    });
    const delivery = deliveryOfError(error, SERVER);
    const reason = delivery.outcome === 'sent' ? '' : delivery.reason;
    expect([...reason]).toHaveLength(200);
    expect(reason).not.toMatch(/[\r\n]/);
  });
});

describe('deliveryOfSent', () => {
  it('is sent when every recipient took it', () => {
    expect(deliveryOfSent({ rejected: [] })).toEqual({ outcome: 'sent' });
  });

  it('is failed, naming who was refused and why, when some were refused', () => {
    expect(
      deliveryOfSent({
        rejected: ['dev@example.org'],
        rejectedErrors: [failure('x', { response: '550 5.1.1 no such user' })],
      }),
    ).toEqual({
      outcome: 'failed',
      reason: 'refused dev@example.org: 550 5.1.1 no such user; sent to the others',
    });
  });
});

describe('transportOptionsOf', () => {
  it.each([
    ['a password to a server elsewhere over smtp://', 'mail.example.com', false, true, true],
    ['no password', 'mail.example.com', false, false, false],
    ['smtps://, TLS from the start', 'mail.example.com', true, true, false],
    ['a password to this machine (a local relay)', '127.0.0.1', false, true, false],
    ['a password to localhost', 'localhost', false, true, false],
    ['a password to ::1', '::1', false, true, false],
  ])('requires STARTTLS for %s: %s', (_, host, secure, withPassword, requireTLS) => {
    const options = transportOptionsOf(
      {
        secure,
        host,
        port: 25,
        ...(withPassword ? { auth: { user: 'u', password: 'p' } } : {}),
      },
      DEFAULT_EMAIL_TIMEOUTS,
    );
    expect(options.requireTLS).toBe(requireTLS);
  });

  it('sets every time-out, so a stalled server cannot hold the sender', () => {
    const options = transportOptionsOf(
      { secure: false, host: 'mail.example.com', port: 587 },
      { connectionMs: 1, greetingMs: 2, socketMs: 3 },
    );
    expect(options).toMatchObject({ connectionTimeout: 1, greetingTimeout: 2, socketTimeout: 3 });
  });
});
