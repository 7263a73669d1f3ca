/**
 * The page's recorder, as the app's bundle reaches it: the inline script in the head started it
 * before any module (recorder/recorder.ts) and left it on `window`. Never on the server.
 */
import { RECORDER_GLOBAL, type Recorder } from './recorder/recorder';

export function pageRecorder(): Recorder | undefined {
  return typeof window === 'undefined' ? undefined : Reflect.get(window, RECORDER_GLOBAL);
}
