import { describe, expect, it } from 'vitest';
import {
  describeViolation,
  MAX_CSP_REPORTS_PER_PAGE,
  reportCspViolations,
} from '#app/monitoring/csp-violations';

const violation = (over: Partial<Parameters<typeof describeViolation>[0]> = {}) => ({
  effectiveDirective: 'script-src-elem',
  blockedURI: 'inline',
  sourceFile: 'http://localhost:3000/about',
  lineNumber: 1,
  disposition: 'enforce',
  ...over,
});

describe('describeViolation', () => {
  it.each([
    ['inline', 'Content-Security-Policy: script-src-elem blocked inline'],
    ['', 'Content-Security-Policy: script-src-elem blocked inline'],
    ['eval', 'Content-Security-Policy: script-src-elem blocked eval'],
    [
      'https://cdn.evil.test/x.js?k=secret',
      'Content-Security-Policy: script-src-elem blocked https://cdn.evil.test',
    ],
    ['data:text/javascript,alert(1)', 'Content-Security-Policy: script-src-elem blocked data:'],
  ])('blocked %j reads %j', (blockedURI, message) => {
    expect(describeViolation(violation({ blockedURI })).message).toBe(message);
  });

  it('tags the directive and keeps the details, clipped', () => {
    const described = describeViolation(
      violation({ blockedURI: `https://x.test/${'a'.repeat(900)}` }),
    );
    expect(described.tags).toEqual({
      csp_directive: 'script-src-elem',
      csp_disposition: 'enforce',
    });
    expect(String(described.extra.blockedURI).length).toBe(500);
  });
});

describe('reportCspViolations', () => {
  it(`reports at most ${MAX_CSP_REPORTS_PER_PAGE} per page`, () => {
    const target = new EventTarget();
    const reported: string[] = [];
    const stop = reportCspViolations(target as unknown as Document, (d) =>
      reported.push(d.message),
    );
    for (let i = 0; i < 10; i++) {
      target.dispatchEvent(
        Object.assign(
          new Event('securitypolicyviolation'),
          violation({ blockedURI: `https://a${i}.test/` }),
        ),
      );
    }
    expect(reported).toEqual(
      ['https://a0.test', 'https://a1.test', 'https://a2.test'].map(
        (o) => `Content-Security-Policy: script-src-elem blocked ${o}`,
      ),
    );
    stop();
  });

  it('stops listening when asked', () => {
    const target = new EventTarget();
    const reported: string[] = [];
    const stop = reportCspViolations(target as unknown as Document, (d) =>
      reported.push(d.message),
    );
    stop();
    target.dispatchEvent(Object.assign(new Event('securitypolicyviolation'), violation()));
    expect(reported).toEqual([]);
  });
});
