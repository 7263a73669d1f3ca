import { describe, expect, it } from 'vitest';
import {
  type LocationChange,
  type RouterEvents,
  withNavigationOrigin,
  withServerRenderedOrigin,
} from '#app/start-1.120/navigation-origin';

const served = { pathname: '/', state: { key: 'ssr' } };
const about = { pathname: '/about', state: { key: 'a' } };
const home = { pathname: '/', state: { key: 'b' } };

describe('withNavigationOrigin', () => {
  it.each<[string, LocationChange<typeof served>, typeof served]>([
    [
      'the first navigation after hydration comes from the served page',
      { toLocation: about },
      served,
    ],
    [
      'a later one from where the router resolved',
      { fromLocation: about, toLocation: home },
      about,
    ],
    [
      'a reload of the served page stays a reload',
      { fromLocation: served, toLocation: served },
      served,
    ],
  ])('%s', (_case, change, from) => {
    expect(withNavigationOrigin(change, served)).toEqual({ ...change, fromLocation: from });
  });
});

/** A router with just the parts the view touches: events, and a getter on its prototype. */
class FakeRouter implements RouterEvents {
  listeners = new Map<string, Array<(event: never) => void>>();
  location = served;
  get state() {
    return { location: this.location };
  }
  subscribe = (eventType: string, listener: (event: never) => void) => {
    this.listeners.set(eventType, [...(this.listeners.get(eventType) ?? []), listener]);
    return () => {};
  };
  emit(eventType: string, event: unknown) {
    for (const listener of this.listeners.get(eventType) ?? []) listener(event as never);
  }
}

describe('withServerRenderedOrigin', () => {
  it('gives onBeforeLoad the served page as origin, and passes other events as they are', () => {
    const router = new FakeRouter();
    const view = withServerRenderedOrigin(router, served);
    const seen: unknown[] = [];
    view.subscribe('onBeforeLoad', (event) => seen.push(['onBeforeLoad', event]));
    view.subscribe('onResolved', (event) => seen.push(['onResolved', event]));

    router.emit('onBeforeLoad', { toLocation: about });
    router.emit('onResolved', { toLocation: about });
    router.emit('onBeforeLoad', { fromLocation: about, toLocation: home });
    expect(seen).toEqual([
      ['onBeforeLoad', { fromLocation: served, toLocation: about }],
      ['onResolved', { toLocation: about }],
      ['onBeforeLoad', { fromLocation: about, toLocation: home }],
    ]);
  });

  it('reads everything else from the router itself, as it is now', () => {
    const router = new FakeRouter();
    const view = withServerRenderedOrigin(router, served);
    router.location = about;
    expect(view.state.location).toBe(about);
  });
});
