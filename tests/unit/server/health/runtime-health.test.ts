import { describe, expect, it } from 'vitest';
import { sampleEventLoop } from '#app/server/health/runtime-health.server';

describe('sampleEventLoop', () => {
  it('gives callers asking at the same time one shared sample', async () => {
    const first = sampleEventLoop(50);
    const second = sampleEventLoop(50);
    expect(second).toBe(first);
    const report = await first;
    expect(report.sampledMs).toBe(50);
    expect(report.nodeVersion).toBe(process.version);
  });

  it('takes a new sample once the previous one is done', async () => {
    const first = sampleEventLoop(50);
    await first;
    expect(sampleEventLoop(50)).not.toBe(first);
  });
});
