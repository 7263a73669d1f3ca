import { describe, expect, it } from 'vitest';
import { parseServerEnv } from '#app/server/env.server';

const SMTP = 'smtp://mail.example.com';
const TO = 'ops@example.com';

function parsed(env: Record<string, string>) {
  const result = parseServerEnv(env, () => 'token-for-this-run-0123456789');
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

function problem(env: Record<string, string>): string {
  const result = parseServerEnv(env, () => 'token-for-this-run-0123456789');
  if (result.ok) throw new Error('the environment was accepted');
  return result.message;
}

describe('email alerts in the environment', () => {
  it('are off when neither variable is set', () => {
    expect(parsed({}).alertEmail).toBeUndefined();
  });

  it.each([
    [
      'smtp:// with its default port 587',
      { MONITORING_SMTP_URL: SMTP },
      { secure: false, host: 'mail.example.com', port: 587 },
    ],
    [
      'smtps:// with its default port 465',
      { MONITORING_SMTP_URL: 'smtps://mail.example.com' },
      { secure: true, host: 'mail.example.com', port: 465 },
    ],
    [
      'a port, a user and a percent-encoded password',
      { MONITORING_SMTP_URL: ' smtp://alerts%40example.com:p%40ss%3Aword@127.0.0.1:2525/ ' },
      {
        secure: false,
        host: '127.0.0.1',
        port: 2525,
        auth: { user: 'alerts@example.com', password: 'p@ss:word' },
      },
    ],
    [
      'an IPv6 host, without its brackets',
      { MONITORING_SMTP_URL: 'smtp://[::1]:25' },
      { secure: false, host: '::1', port: 25 },
    ],
  ])('reads %s', (_, env, smtp) => {
    expect(parsed({ ...env, MONITORING_ALERT_EMAIL_TO: TO }).alertEmail?.smtp).toEqual(smtp);
  });

  it.each([
    ['one recipient', TO, [TO]],
    ['several, spaces and empty items dropped', ' a@x.org , b@y.net,, ', ['a@x.org', 'b@y.net']],
  ])('reads the recipients: %s', (_, to, expected) => {
    expect(
      parsed({ MONITORING_SMTP_URL: SMTP, MONITORING_ALERT_EMAIL_TO: to }).alertEmail?.to,
    ).toEqual(expected);
  });

  it.each([
    [
      'the one given',
      { MONITORING_ALERT_EMAIL_FROM: 'errors@app.example.com' },
      'errors@app.example.com',
    ],
    [
      'at the host of PUBLIC_URL',
      { PUBLIC_URL: 'https://app.example.com:8443/x' },
      'alerts@app.example.com',
    ],
    ['at localhost without PUBLIC_URL', {}, 'alerts@localhost'],
    [
      'at localhost for an IPv6 PUBLIC_URL',
      { PUBLIC_URL: 'http://[::1]:3000' },
      'alerts@localhost',
    ],
  ])('sends from %s', (_, env, from) => {
    const config = parsed({ ...env, MONITORING_SMTP_URL: SMTP, MONITORING_ALERT_EMAIL_TO: TO });
    expect(config.alertEmail?.from).toBe(from);
  });

  it.each([
    [
      'SMTP without recipients',
      { MONITORING_SMTP_URL: SMTP },
      'MONITORING_SMTP_URL: is set without MONITORING_ALERT_EMAIL_TO: email alerts need both',
    ],
    [
      'recipients without SMTP',
      { MONITORING_ALERT_EMAIL_TO: TO },
      'MONITORING_ALERT_EMAIL_TO: is set without MONITORING_SMTP_URL: email alerts need both',
    ],
    [
      'an http URL',
      { MONITORING_SMTP_URL: 'http://mail.example.com' },
      'MONITORING_SMTP_URL: must start with smtp:// or smtps://, got "http://"',
    ],
    [
      'no URL at all',
      { MONITORING_SMTP_URL: 'mail.example.com:25' },
      'MONITORING_SMTP_URL: must start with smtp:// or smtps://',
    ],
    [
      'a path',
      { MONITORING_SMTP_URL: 'smtp://mail.example.com/inbox' },
      'MONITORING_SMTP_URL: takes no path, query or fragment',
    ],
    [
      'a query',
      { MONITORING_SMTP_URL: 'smtp://mail.example.com?pool=true' },
      'MONITORING_SMTP_URL: takes no path, query or fragment',
    ],
    ['no host', { MONITORING_SMTP_URL: 'smtp://' }, 'MONITORING_SMTP_URL: has no host name'],
    [
      'a space in the host',
      { MONITORING_SMTP_URL: 'smtp://mail example.com' },
      'MONITORING_SMTP_URL: is not a URL',
    ],
    [
      'port 0',
      { MONITORING_SMTP_URL: 'smtp://mail.example.com:0' },
      'MONITORING_SMTP_URL: has no valid port',
    ],
    [
      'a password without a user',
      { MONITORING_SMTP_URL: 'smtp://:hunter2@mail.example.com' },
      'MONITORING_SMTP_URL: has a password without a user name, got "smtp://:***@mail.example.com"',
    ],
    [
      'a recipient that is not an address',
      { MONITORING_SMTP_URL: SMTP, MONITORING_ALERT_EMAIL_TO: 'ops@example.com, Ops <x@y.z>' },
      'MONITORING_ALERT_EMAIL_TO: "Ops <x@y.z>" is not an email address (name@example.com)',
    ],
    [
      'only commas as recipients',
      { MONITORING_SMTP_URL: SMTP, MONITORING_ALERT_EMAIL_TO: ' , ' },
      'MONITORING_ALERT_EMAIL_TO: names no address',
    ],
    [
      'a sender that is not an address',
      {
        MONITORING_SMTP_URL: SMTP,
        MONITORING_ALERT_EMAIL_TO: TO,
        MONITORING_ALERT_EMAIL_FROM: 'inbox',
      },
      'MONITORING_ALERT_EMAIL_FROM: "inbox" is not an email address (name@example.com)',
    ],
  ])('stops the server on %s, naming the variable', (_, env, line) => {
    expect(problem(env)).toContain(`  ${line}`);
  });

  it('names a bad SMTP URL beside an unrelated bad variable, in one message', () => {
    const message = problem({ PORT: 'abc', MONITORING_ALERT_EMAIL_TO: TO });
    expect(message).toContain('  PORT: must be a whole number');
    expect(message).toContain('  MONITORING_ALERT_EMAIL_TO: is set without MONITORING_SMTP_URL');
  });

  it.each([
    ['a bad scheme', 'ftp://user:hunter2@mail.example.com'],
    ['a path', 'smtp://user:hunter2@mail.example.com/x'],
    ['a bad port', 'smtp://user:hunter2@mail.example.com:99999'],
    ['no URL at all', 'user:hunter2@mail.example.com'],
    ['an unparsable URL', 'smtp://user:hunter2@[mail'],
  ])('never repeats the password when the URL has %s', (_, url) => {
    const message = problem({ MONITORING_SMTP_URL: url, MONITORING_ALERT_EMAIL_TO: TO });
    expect(message).toContain('MONITORING_SMTP_URL: ');
    expect(message).not.toContain('hunter2');
  });
});
