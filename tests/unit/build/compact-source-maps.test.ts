import { SourceMap } from 'node:module';
import type { EncodedSourceMap } from '@jridgewell/trace-mapping';
import { describe, expect, it } from 'vitest';
import { withoutRepeatedMappings } from '../../../build/compact-source-maps';

/** A map from decoded lines: [generatedColumn, source, line, column, name?] per segment. */
function mapOf(lines: number[][][]): EncodedSourceMap {
  // Encoded with Node's own consumer as the reference: SourceMap takes the encoded form only.
  const vlq = (value: number) => {
    let v = value < 0 ? (-value << 1) | 1 : value << 1;
    let out = '';
    do {
      let digit = v & 31;
      v >>>= 5;
      if (v > 0) digit |= 32;
      out += 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[digit];
    } while (v > 0);
    return out;
  };
  const last = [0, 0, 0, 0];
  const mappings = lines
    .map((line) => {
      last[0] = 0;
      return line
        .map((segment) =>
          segment
            .map((value, i) => {
              const delta = value - (last[i] ?? 0);
              last[i] = value;
              return vlq(delta);
            })
            .join(''),
        )
        .join(',');
    })
    .join(';');
  return { version: 3, sources: ['dsn.ts', 'filters.ts'], names: ['n'], mappings };
}

/** What Node maps each generated position of `lines` to: what a server stack frame shows. */
function everyLookup(map: EncodedSourceMap, widths: number[]) {
  const node = new SourceMap(map as ConstructorParameters<typeof SourceMap>[0]);
  return widths.flatMap((width, line) =>
    Array.from({ length: width }, (_, column) => {
      const entry = node.findEntry(line, column) as Partial<Record<string, unknown>>;
      return [entry.originalSource, entry.originalLine, entry.originalColumn, entry.name];
    }),
  );
}

const count = (map: EncodedSourceMap) => map.mappings.split(/[;,]/).filter(Boolean).length;

describe('withoutRepeatedMappings', () => {
  it.each([
    // A mapping per character, each repeating its token's start: only the token starts stay.
    [
      'character-level',
      [
        [
          [0, 0, 0, 0],
          [1, 0, 0, 0],
          [2, 0, 0, 0],
          [3, 0, 0, 4],
          [4, 0, 0, 4],
        ],
        [
          [0, 1, 0, 0],
          [1, 1, 0, 0],
        ],
      ],
      4,
    ],
    // Same column on another line or in another source is news: all stay.
    [
      'other line or source',
      [
        [
          [0, 0, 0, 0],
          [2, 0, 1, 0],
          [4, 1, 1, 0],
        ],
      ],
      3,
    ],
    // A named mapping is kept, and so is the one after it.
    [
      'names',
      [
        [
          [0, 0, 0, 0],
          [2, 0, 0, 0, 0],
          [4, 0, 0, 0],
        ],
      ],
      3,
    ],
    // Each generated line keeps its first mapping, whatever the line before ended on.
    [
      'line starts',
      [
        [
          [0, 0, 0, 0],
          [3, 0, 0, 0],
        ],
        [
          [0, 0, 0, 0],
          [2, 0, 0, 0],
        ],
        [[0, 1, 0, 0]],
      ],
      3,
    ],
    // An unmapped stretch (a one-field segment) ends what comes before it.
    ['unmapped', [[[0, 0, 0, 0], [2], [4, 0, 0, 0], [6, 0, 0, 0], [8, 0, 0, 0]]], 4],
    // The map's last mapping stays (Node names it from `names`), and so does the one before it.
    [
      'the last mapping',
      [
        [
          [0, 0, 0, 0],
          [2, 0, 0, 0],
          [4, 0, 0, 0],
        ],
      ],
      2,
    ],
  ])('%s: every position maps where it did, with %#', (_, lines, kept) => {
    const map = mapOf(lines);
    const compact = withoutRepeatedMappings(map);
    const widths = lines.map(() => 12);
    expect(count(compact)).toBe(kept);
    expect(everyLookup(compact, widths)).toEqual(everyLookup(map, widths));
  });

  it('keeps every other field of the map as it was', () => {
    const map = { ...mapOf([[[0, 0, 0, 0]]]), file: 'start.mjs', sourcesContent: ['a', 'b'] };
    const { mappings: _m, ...rest } = withoutRepeatedMappings(map);
    const { mappings: _o, ...before } = map;
    expect(rest).toEqual(before);
  });
});
