import { describe, expect, it } from 'vitest';
import { createAdmission, type Waiting } from '../../../app/server/node/admission';

/** A request that records what happened to it, and can be finished or abandoned. */
function request(log: string[], name: string) {
  let release: (() => void) | undefined;
  let gone = false;
  const waiting: Waiting = {
    start: (done) => {
      log.push(`start ${name}`);
      release = done;
    },
    refuse: (reason) => log.push(`refuse ${name}: ${reason}`),
    gone: () => gone,
  };
  return {
    waiting,
    finish: () => release?.(),
    leave: () => {
      gone = true;
    },
  };
}

describe('createAdmission', () => {
  it('runs up to the limit at once, then lets the next one in as each finishes, in order', () => {
    const log: string[] = [];
    const admission = createAdmission({ concurrency: 2, maxQueued: 10, maxWaitMs: 1000 }, () => 0);
    const a = request(log, 'a');
    const b = request(log, 'b');
    const c = request(log, 'c');
    const d = request(log, 'd');
    for (const r of [a, b, c, d]) admission.admit(r.waiting);
    expect(log).toEqual(['start a', 'start b']);
    expect(admission.queued()).toBe(2);
    b.finish();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    a.finish();
    c.finish();
    expect(log.at(-1)).toBe('start d');
    expect(admission.inFlight()).toBe(1);
  });

  it('refuses at once when the line is full', () => {
    const log: string[] = [];
    const admission = createAdmission({ concurrency: 1, maxQueued: 1, maxWaitMs: 1000 }, () => 0);
    for (const name of ['a', 'b', 'c']) admission.admit(request(log, name).waiting);
    expect(log).toEqual(['start a', 'refuse c: queue full']);
  });

  it('refuses a request that waited too long when its turn comes, and starts the next', () => {
    const log: string[] = [];
    let clock = 0;
    const admission = createAdmission(
      { concurrency: 1, maxQueued: 5, maxWaitMs: 100 },
      () => clock,
    );
    const a = request(log, 'a');
    admission.admit(a.waiting);
    admission.admit(request(log, 'b').waiting);
    clock = 50;
    admission.admit(request(log, 'c').waiting);
    clock = 120;
    a.finish();
    expect(log).toEqual(['start a', 'refuse b: waited too long', 'start c']);
  });

  it('skips a client that left while waiting, without answering it', () => {
    const log: string[] = [];
    const admission = createAdmission({ concurrency: 1, maxQueued: 5, maxWaitMs: 100 }, () => 0);
    const a = request(log, 'a');
    const b = request(log, 'b');
    admission.admit(a.waiting);
    admission.admit(b.waiting);
    admission.admit(request(log, 'c').waiting);
    b.leave();
    a.finish();
    expect(log).toEqual(['start a', 'start c']);
  });

  it('counts a release called twice once', () => {
    const log: string[] = [];
    const admission = createAdmission({ concurrency: 1, maxQueued: 5, maxWaitMs: 100 }, () => 0);
    const a = request(log, 'a');
    admission.admit(a.waiting);
    a.finish();
    a.finish();
    expect(admission.inFlight()).toBe(0);
  });
});
