/**
 * Reads a Sentry artifact bundle as the CLI uploads it: `SYSB`, a 4-byte version, then a zip
 * whose offsets count from the start of the whole buffer. Enough of the zip format for what
 * the CLI writes (stored or deflated entries, no zip64): the central directory, then each entry.
 */
import { inflateRawSync } from 'node:zlib';

export interface ArtifactBundle {
  manifest: {
    org?: string;
    project?: string;
    release?: string;
    files: Record<string, { url: string; type: string; headers?: Record<string, string> }>;
  };
  /** Entry name → content. */
  files: Map<string, Buffer>;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_ENTRY = 0x02014b50;

export function readArtifactBundle(bundle: Buffer): ArtifactBundle {
  if (bundle.toString('latin1', 0, 4) !== 'SYSB') throw new Error('not an artifact bundle');
  const end = bundle.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end === -1 || bundle.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) {
    throw new Error('no zip end record');
  }
  const files = new Map<string, Buffer>();
  let entry = bundle.readUInt32LE(end + 16);
  for (let count = bundle.readUInt16LE(end + 10); count > 0; count--) {
    if (bundle.readUInt32LE(entry) !== CENTRAL_ENTRY) throw new Error('bad central directory');
    const method = bundle.readUInt16LE(entry + 10);
    const size = bundle.readUInt32LE(entry + 20);
    const nameLength = bundle.readUInt16LE(entry + 28);
    const local = bundle.readUInt32LE(entry + 42);
    const name = bundle.toString('utf8', entry + 46, entry + 46 + nameLength);
    const start = local + 30 + bundle.readUInt16LE(local + 26) + bundle.readUInt16LE(local + 28);
    const raw = bundle.subarray(start, start + size);
    files.set(name, method === 8 ? inflateRawSync(raw) : Buffer.from(raw));
    entry += 46 + nameLength + bundle.readUInt16LE(entry + 30) + bundle.readUInt16LE(entry + 32);
  }
  const manifest = files.get('manifest.json');
  if (!manifest) throw new Error('no manifest.json');
  return { manifest: JSON.parse(manifest.toString('utf8')) as ArtifactBundle['manifest'], files };
}
