/**
 * The inline script's entry: build/inline-scripts.ts bundles this file, with what it imports,
 * into the string app/routes/__root.tsx renders first in the document head.
 */
import { RECORDER_GLOBAL, startRecorder } from './recorder';

// Once per page, also if `vinxi dev` runs the head's script again.
if (!Reflect.has(window, RECORDER_GLOBAL))
  Reflect.set(window, RECORDER_GLOBAL, startRecorder(window));
