/**
 * The inbox's writer thread, real threads on a real disk: what lands, what a failure leaves
 * behind (nothing), and that a crashed, silent or busy thread never leaves a write hanging.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createInboxWriter,
  type InboxWriter,
  type InboxWriterOptions,
} from '#app/server/inbox/inbox-writer.server';
import {
  INBOX_BUSY,
  WRITER_STOPPED,
  type WriteTarget,
} from '#app/server/inbox/inbox-writer-protocol';
import { writerThreadSource } from '#app/server/inbox/inbox-writer-thread.server';

const CHILD = resolve(import.meta.dirname, '../../../fixtures/inbox-writer-child.ts');
const freshDir = () => mkdtempSync(join(tmpdir(), 'inbox-writer-'));
const target = (dir: string, name: string): WriteTarget => ({
  dir,
  temp: join(dir, `.${name}.tmp`),
  path: join(dir, name),
});
const bytesOf = (text: string) => new TextEncoder().encode(text);
/** A thread that takes every write and never answers. */
const SILENT = "require('node:worker_threads').parentPort.on('message', () => {});";
/** The real thread, except that it dies on a write whose file name says "crash". */
const CRASHES_ON_DEMAND = `
require('node:worker_threads').parentPort.on('message', (request) => {
  if (request.path.includes('crash')) process.exit(7);
});
${writerThreadSource()}`;

const writers: InboxWriter[] = [];
const writer = (options?: InboxWriterOptions) => {
  const made = createInboxWriter(options);
  writers.push(made);
  return made;
};
afterEach(async () => {
  await Promise.all(writers.splice(0).map((made) => made.close()));
});

/** Settles to the rejection's code and message, or 'resolved'. */
const outcome = (write: Promise<void>) =>
  write.then(
    () => 'resolved',
    (error: NodeJS.ErrnoException) => `${error.code}: ${error.message}`,
  );

describe('the inbox writer', () => {
  it('lands every one of many concurrent writes whole, and leaves no temp file', async () => {
    const dir = freshDir();
    const inbox = writer();
    const contents = Array.from({ length: 120 }, (_, n) =>
      Buffer.from(`${n}:${'x'.repeat((n * 997) % 70_000)}`),
    );
    // Copies: the writer may move the bytes it is given to its thread.
    await Promise.all(
      contents.map((bytes, n) => inbox.write(target(dir, `e${n}`), Buffer.from(bytes))),
    );
    expect(readdirSync(dir).sort()).toEqual(contents.map((_, n) => `e${n}`).sort());
    for (const [n, bytes] of contents.entries()) {
      expect(readFileSync(join(dir, `e${n}`)).equals(bytes)).toBe(true);
    }
    expect(inbox.pending()).toBe(0);
  });

  it('makes the directory when it is missing', async () => {
    const dir = join(freshDir(), 'not', 'yet');
    await writer().write(target(dir, 'first'), bytesOf('first'));
    expect(readFileSync(join(dir, 'first'), 'utf8')).toBe('first');
  });

  it('rejects with the error and its code when the file cannot be made, leaving nothing', async () => {
    const parent = freshDir();
    const dir = join(parent, 'a-file');
    writeFileSync(dir, 'not a directory');
    const result = await outcome(writer().write(target(dir, 'entry'), bytesOf('lost')));
    expect(result).toMatch(/^ENOTDIR: ENOTDIR: not a directory, open '.*\.entry\.tmp'$/);
    expect(readdirSync(parent)).toEqual(['a-file']);
  });

  it("never removes a temp file it did not create (another writer's)", async () => {
    const dir = freshDir();
    writeFileSync(join(dir, '.entry.tmp'), "someone else's");
    const inbox = writer();
    const [clash, other] = await Promise.all([
      outcome(inbox.write(target(dir, 'entry'), bytesOf('mine'))),
      outcome(inbox.write(target(dir, 'other'), bytesOf('other'))),
    ]);
    expect(clash).toMatch(/^EEXIST: /);
    // One failure in a batch costs the others nothing.
    expect(other).toBe('resolved');
    expect(readdirSync(dir).sort()).toEqual(['.entry.tmp', 'other']);
    expect(readFileSync(join(dir, '.entry.tmp'), 'utf8')).toBe("someone else's");
  });

  it('fails every write of a thread that crashes, then starts a new thread', async () => {
    const dir = freshDir();
    const inbox = writer({ source: CRASHES_ON_DEMAND });
    await inbox.write(target(dir, 'before'), bytesOf('before'));
    // The crash first; the others are in flight behind it when the thread dies.
    const inFlight = ['crash', 'a', 'b', 'c'].map((name) =>
      outcome(inbox.write(target(dir, name), bytesOf(name))),
    );
    const results = await Promise.all(inFlight);
    expect(results).toEqual(
      Array(4).fill(`${WRITER_STOPPED}: the inbox writer thread stopped (exit code 7)`),
    );
    expect(inbox.pending()).toBe(0);
    await inbox.write(target(dir, 'after'), bytesOf('after'));
    expect(readdirSync(dir).sort()).toEqual(['after', 'before']);
  });

  it('fails a write the thread does not answer in time, and refuses writes past its bound', async () => {
    const dir = freshDir();
    const inbox = writer({ source: SILENT, maxPending: 2, timeoutMs: 300 });
    const first = outcome(inbox.write(target(dir, 'a'), bytesOf('a')));
    const second = outcome(inbox.write(target(dir, 'b'), bytesOf('b')));
    const started = performance.now();
    expect(await outcome(inbox.write(target(dir, 'c'), bytesOf('c')))).toBe(
      `${INBOX_BUSY}: the local inbox has 2 writes waiting already`,
    );
    expect(performance.now() - started).toBeLessThan(100);
    expect(await first).toBe('ETIMEDOUT: the inbox writer did not answer within 300 ms');
    expect(await second).toBe('ETIMEDOUT: the inbox writer did not answer within 300 ms');
    // The thread has them still: they count until it answers or stops.
    expect(inbox.pending()).toBe(2);
    await inbox.close();
    expect(inbox.pending()).toBe(0);
  });

  it('lets a shutdown wait for the writes in flight', async () => {
    const dir = freshDir();
    const inbox = writer();
    const writes = Array.from({ length: 20 }, (_, n) =>
      inbox.write(target(dir, `e${n}`), bytesOf(`${n}`)),
    );
    expect(inbox.pending()).toBe(20);
    expect(await inbox.settled(10_000)).toBe('settled');
    expect(readdirSync(dir)).toHaveLength(20);
    await Promise.all(writes);

    const silent = writer({ source: SILENT, timeoutMs: 60_000 });
    void silent.write(target(dir, 'never'), bytesOf('never')).catch(() => {});
    expect(await silent.settled(200)).toBe('timed-out');
  });

  it.each([
    ['write', 'landed'],
    ['start', 'started'],
  ])(
    'keeps the process alive while it writes, and not after (%s)',
    async (mode, said) => {
      const dir = freshDir();
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, mode], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await new Promise((done) => child.once('close', done));
      clearTimeout(timer);
      expect(output.trim()).toBe(said);
      expect(code).toBe(0);
      expect(existsSync(join(dir, 'entry'))).toBe(mode === 'write');
    },
    30_000,
  );
});
