import { describe, expect, it } from 'vitest';
import {
  type EarlyReport,
  REPORT_QUEUE_SIZE,
  randomEventId,
  recordEarlyReports,
} from '#app/monitoring/early-reports';

const MECHANISM = { type: 'auto.function.react.error_boundary', handled: true };

function setUp() {
  const page = new EventTarget();
  let clock = 100;
  let ids = 0;
  const reports = recordEarlyReports(
    page,
    () => clock,
    () => `id${++ids}`,
  );
  return { page, reports, tick: (seconds: number) => (clock += seconds) };
}

function errorEvent(message: string): Event {
  return Object.assign(new Event('error'), { message, error: new Error(message) });
}

describe('recordEarlyReports', () => {
  it('keeps uncaught errors, rejections and captured reports in order, with their times', () => {
    const { page, reports, tick } = setUp();
    page.dispatchEvent(errorEvent('first'));
    tick(1);
    page.dispatchEvent(new Event('unhandledrejection'));
    tick(1);
    expect(reports.captureException(new Error('caught'), MECHANISM)).toBe('id1');
    reports.captureMessage('csp', { level: 'warning' });

    const received: EarlyReport[] = [];
    reports.handOver({ receive: (report) => received.push(report) }, true);
    expect(received.map((report) => [report.kind, report.at])).toEqual([
      ['error', 100],
      ['rejection', 101],
      ['exception', 102],
      ['message', 102],
    ]);
    expect(reports.pendingCount()).toBe(0);
  });

  it(`holds at most ${REPORT_QUEUE_SIZE} while nothing can send them`, () => {
    const { page, reports } = setUp();
    for (let i = 0; i < 100; i++) page.dispatchEvent(errorEvent(`e${i}`));
    expect(reports.pendingCount()).toBe(REPORT_QUEUE_SIZE);
  });

  it('after the hand-over, forwards at once; stops listening when the receiver catches errors itself', () => {
    for (const catchesUncaughtErrors of [true, false]) {
      const { page, reports } = setUp();
      const received: string[] = [];
      reports.handOver({ receive: (report) => received.push(report.kind) }, catchesUncaughtErrors);
      reports.captureException(new Error('later'), MECHANISM);
      page.dispatchEvent(errorEvent('later, uncaught'));
      expect(received).toEqual(catchesUncaughtErrors ? ['exception'] : ['exception', 'error']);
      expect(reports.handedOver()).toBe(true);
    }
  });

  it('gives taken reports to no one else', () => {
    const { page, reports } = setUp();
    page.dispatchEvent(errorEvent('sent by beacon'));
    expect(reports.takePending()).toHaveLength(1);
    const received: EarlyReport[] = [];
    reports.handOver({ receive: (report) => received.push(report) }, true);
    expect(received).toEqual([]);
  });

  it('tells a listener of the reports that wait and of each one after', () => {
    const { page, reports } = setUp();
    page.dispatchEvent(errorEvent('before listening'));
    const heard: string[] = [];
    reports.onReport((report) => heard.push(report.kind));
    reports.captureMessage('after', { level: 'warning' });
    expect(heard).toEqual(['error', 'message']);
    // Still waiting for a receiver: listening takes nothing.
    expect(reports.pendingCount()).toBe(2);
  });

  it('keeps only what is worth keeping: noise never takes one of the places', () => {
    const page = new EventTarget();
    const isNoise = (report: EarlyReport) => report.kind === 'message';
    const reports = recordEarlyReports(page, undefined, undefined, (report) => !isNoise(report));
    const heard: string[] = [];
    reports.onReport((report) => heard.push(report.kind));
    for (let n = 0; n < REPORT_QUEUE_SIZE + 10; n++) {
      reports.captureMessage('ResizeObserver loop limit exceeded', { level: 'error' });
    }
    reports.captureException(new Error('real'), MECHANISM);
    expect(reports.pendingCount()).toBe(1);
    expect(heard).toEqual(['exception']);
    // Once a receiver has taken over, everything goes to it: it filters for itself.
    const received: string[] = [];
    reports.handOver({ receive: (report) => received.push(report.kind) }, true);
    reports.captureMessage('ResizeObserver loop limit exceeded', { level: 'error' });
    expect(received).toEqual(['exception', 'message']);
  });

  it('makes event ids as Sentry writes them', () => {
    expect(randomEventId()).toMatch(/^[0-9a-f]{32}$/);
    expect(randomEventId()).not.toBe(randomEventId());
  });
});
