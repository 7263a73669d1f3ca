import { describe, expect, it } from 'vitest';
import { createAdmission, type Waiting } from '#app/server/node/admission';

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

/** setImmediate's stand-in: deferred tasks run only when the test says a turn has ended. */
function turns() {
  let pending: Array<() => void> = [];
  return {
    defer: (task: () => void) => {
      pending.push(task);
    },
    /** Ends the current turn: runs what was deferred so far (not what those tasks defer). */
    next: () => {
      const due = pending;
      pending = [];
      for (const task of due) task();
    },
  };
}

/** No turn budget to speak of, for the tests about places and the line. */
const ROOMY = { turnBudgetMs: 1_000 };

describe('createAdmission', () => {
  it('runs up to the limit at once, then lets the next one in as each finishes, in order', () => {
    const log: string[] = [];
    const loop = turns();
    const admission = createAdmission(
      { ...ROOMY, concurrency: 2, maxQueued: 10, maxWaitMs: 1000 },
      () => 0,
      loop.defer,
    );
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
    const loop = turns();
    const admission = createAdmission(
      { ...ROOMY, concurrency: 1, maxQueued: 1, maxWaitMs: 1000 },
      () => 0,
      loop.defer,
    );
    for (const name of ['a', 'b', 'c']) admission.admit(request(log, name).waiting);
    expect(log).toEqual(['start a', 'refuse c: queue full']);
  });

  it('refuses a request that waited too long when its turn comes, and starts the next', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const admission = createAdmission(
      { ...ROOMY, concurrency: 1, maxQueued: 5, maxWaitMs: 100 },
      () => clock,
      loop.defer,
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
    const loop = turns();
    const admission = createAdmission(
      { ...ROOMY, concurrency: 1, maxQueued: 5, maxWaitMs: 100 },
      () => 0,
      loop.defer,
    );
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
    const loop = turns();
    const admission = createAdmission(
      { ...ROOMY, concurrency: 1, maxQueued: 5, maxWaitMs: 100 },
      () => 0,
      loop.defer,
    );
    const a = request(log, 'a');
    admission.admit(a.waiting);
    a.finish();
    a.finish();
    expect(admission.inFlight()).toBe(0);
  });

  it('stops starting renders once the turn has used its budget; the rest start in later turns, in order', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const admission = createAdmission(
      { concurrency: 8, turnBudgetMs: 5, maxQueued: 10, maxWaitMs: 1000 },
      () => clock,
      loop.defer,
    );
    admission.admit(request(log, 'a').waiting);
    clock = 3; // a's render ran for 3 ms in this turn
    admission.admit(request(log, 'b').waiting);
    clock = 6;
    admission.admit(request(log, 'c').waiting);
    admission.admit(request(log, 'd').waiting);
    expect(log).toEqual(['start a', 'start b']);
    expect(admission.queued()).toBe(2);

    loop.next();
    // One start per drain: its work runs after the drain returns, so only then can the budget be judged.
    expect(log).toEqual(['start a', 'start b', 'start c']);
    clock = 20;
    loop.next();
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d']);
    expect(admission.inFlight()).toBe(4);
  });

  it('lets a release start the next one only while the turn has budget left', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const admission = createAdmission(
      { concurrency: 1, turnBudgetMs: 5, maxQueued: 10, maxWaitMs: 1000 },
      () => clock,
      loop.defer,
    );
    const a = request(log, 'a');
    const b = request(log, 'b');
    admission.admit(a.waiting);
    admission.admit(b.waiting);
    admission.admit(request(log, 'c').waiting);
    clock = 2;
    a.finish();
    expect(log).toEqual(['start a', 'start b']);
    clock = 7;
    b.finish();
    expect(log).toEqual(['start a', 'start b']);
    loop.next();
    expect(log).toEqual(['start a', 'start b', 'start c']);
  });

  it('gives each turn a fresh budget, so a quiet server starts a request at once', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const admission = createAdmission(
      { concurrency: 8, turnBudgetMs: 5, maxQueued: 10, maxWaitMs: 1000 },
      () => clock,
      loop.defer,
    );
    const a = request(log, 'a');
    admission.admit(a.waiting);
    clock = 50;
    a.finish();
    loop.next();
    clock = 60;
    admission.admit(request(log, 'b').waiting);
    expect(log).toEqual(['start a', 'start b']);
  });
});
