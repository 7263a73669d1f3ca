/**
 * Admission: places for pages and server-function calls.
 */
import { describe, expect, it } from 'vitest';
import { createAdmission, type Place, type Waiting } from '#app/server/node/admission.server';

/** A request that records what happened to it, and can stream, finish or be abandoned. */
function request(log: string[], name: string) {
  let place: Place | undefined;
  let gone = false;
  const waiting: Waiting = {
    start: (given) => {
      log.push(`start ${name}`);
      place = given;
    },
    refuse: (reason) => log.push(`refuse ${name}: ${reason}`),
    gone: () => gone,
  };
  return {
    waiting,
    /** Its shell is sent: only streaming is left. */
    stream: () => place?.streaming(),
    finish: () => place?.release(),
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

/** No turn budget to speak of and no bound on streams, for the tests about places and the line. */
const ROOMY = { turnBudgetMs: 1_000, maxOpen: 1_000 };

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
    expect(admission.working()).toBe(1);
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

  it('refuses a request once it has waited too long, even while every place stays taken', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const timers: Array<{ at: number; task: () => void }> = [];
    const admission = createAdmission(
      { ...ROOMY, concurrency: 1, maxQueued: 5, maxWaitMs: 100 },
      () => clock,
      loop.defer,
      (task, ms) => timers.push({ at: clock + ms, task }),
    );
    admission.admit(request(log, 'held').waiting);
    admission.admit(request(log, 'b').waiting);
    clock = 60;
    admission.admit(request(log, 'c').waiting);
    const fire = (to: number) => {
      clock = to;
      for (const timer of timers.splice(0)) {
        if (timer.at <= to) timer.task();
        else timers.push(timer);
      }
    };
    fire(101);
    expect(log).toEqual(['start held', 'refuse b: waited too long']);
    fire(161);
    expect(log).toEqual(['start held', 'refuse b: waited too long', 'refuse c: waited too long']);
    expect(admission.queued()).toBe(0);
    expect(timers).toEqual([]);
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
    expect(admission.working()).toBe(0);
  });

  it('stops starting renders once the turn has used its budget; the rest start in later turns, in order', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const admission = createAdmission(
      { concurrency: 8, maxOpen: 100, turnBudgetMs: 5, maxQueued: 10, maxWaitMs: 1000 },
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
    expect(admission.working()).toBe(4);
  });

  it('lets a release start the next one only while the turn has budget left', () => {
    const log: string[] = [];
    const loop = turns();
    let clock = 0;
    const admission = createAdmission(
      { concurrency: 1, maxOpen: 100, turnBudgetMs: 5, maxQueued: 10, maxWaitMs: 1000 },
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
      { concurrency: 8, maxOpen: 100, turnBudgetMs: 5, maxQueued: 10, maxWaitMs: 1000 },
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

describe('createAdmission: a page that has sent its shell', () => {
  type Step = `${'admit' | 'stream' | 'finish' | 'leave'} ${string}`;

  it.each<
    [
      string,
      { concurrency: number; maxOpen: number; maxQueued: number },
      Step[],
      string[],
      { working: number; open: number; queued: number },
    ]
  >([
    [
      'gives its working place to the next, and keeps its open place until it ends',
      { concurrency: 1, maxOpen: 3, maxQueued: 10 },
      ['admit a', 'admit b', 'admit c', 'admit d', 'stream a', 'stream b', 'stream c', 'finish a'],
      ['start a', 'start b', 'start c', 'start d'],
      { working: 1, open: 3, queued: 0 },
    ],
    [
      'waits for an open place once streams fill them, however many working places are free',
      { concurrency: 8, maxOpen: 2, maxQueued: 10 },
      ['admit a', 'admit b', 'stream a', 'stream b', 'admit c'],
      ['start a', 'start b'],
      { working: 0, open: 2, queued: 1 },
    ],
    [
      'past open places and the line, is refused like any request',
      { concurrency: 8, maxOpen: 2, maxQueued: 1 },
      ['admit a', 'admit b', 'stream a', 'stream b', 'admit c', 'admit d'],
      ['start a', 'start b', 'refuse d: queue full'],
      { working: 0, open: 2, queued: 1 },
    ],
    [
      'counts streaming twice, or after its end, once',
      { concurrency: 1, maxOpen: 2, maxQueued: 10 },
      ['admit a', 'admit b', 'admit c', 'stream a', 'stream a', 'finish a', 'stream a'],
      ['start a', 'start b'],
      { working: 1, open: 1, queued: 1 },
    ],
    [
      'ends without streaming (a page sent whole): both places go at once',
      { concurrency: 1, maxOpen: 1, maxQueued: 10 },
      ['admit a', 'admit b', 'finish a'],
      ['start a', 'start b'],
      { working: 1, open: 1, queued: 0 },
    ],
    [
      'left while waiting for an open place: skipped when one is free',
      { concurrency: 8, maxOpen: 1, maxQueued: 10 },
      ['admit a', 'stream a', 'admit b', 'admit c', 'leave b', 'finish a'],
      ['start a', 'start c'],
      { working: 1, open: 1, queued: 0 },
    ],
  ])('%s', (_, limits, steps, expectedLog, expectedCounts) => {
    const log: string[] = [];
    const loop = turns();
    const admission = createAdmission(
      { ...limits, turnBudgetMs: 1_000, maxWaitMs: 1_000 },
      () => 0,
      loop.defer,
    );
    const requests = new Map<string, ReturnType<typeof request>>();
    const named = (name: string) => {
      let found = requests.get(name);
      if (!found) {
        found = request(log, name);
        requests.set(name, found);
      }
      return found;
    };
    for (const step of steps) {
      const [action, name] = step.split(' ') as [string, string];
      if (action === 'admit') admission.admit(named(name).waiting);
      else if (action === 'stream') named(name).stream();
      else if (action === 'finish') named(name).finish();
      else named(name).leave();
    }
    expect(log).toEqual(expectedLog);
    expect({
      working: admission.working(),
      open: admission.open(),
      queued: admission.queued(),
    }).toEqual(expectedCounts);
  });
});
