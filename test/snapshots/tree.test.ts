/**
 * Incremental tree building must give exactly the trees a build from scratch gives, whatever the
 * sequence of changes (files replaced by directories and back, directories emptied, unicode names
 * whose git order differs from JavaScript's).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EMPTY_STATE, applyChanges, filesWithin, outermost, serializeTree, type TreeState } from '../../plugins/snapshots/tree.js';

let seed = 7;
const rnd = (n: number) => {
  seed = (seed * 1103515245 + 12345) >>> 0;
  return seed % n;
};
const NAMES = ['a', 'b', 'a-b', 'a.b', 'é', '😀', 'z', 'a b'];
const randomPath = () => Array.from({ length: 1 + rnd(3) }, () => NAMES[rnd(NAMES.length)]).join('/');
const oid = () => randomBytes(20).toString('hex');

function fromScratch(files: Map<string, string>): TreeState {
  const { next } = applyChanges(EMPTY_STATE, new Map(files));
  return { commit: null, ...next };
}

describe('applyChanges', () => {
  it('matches a build from scratch after every step of random change sequences', () => {
    for (let run = 0; run < 30; run++) {
      let state: TreeState = EMPTY_STATE;
      const live = new Map<string, string>();
      for (let step = 0; step < 25; step++) {
        const changes = new Map<string, string | null>();
        for (let k = 0, n = 1 + rnd(4); k < n; k++) {
          const p = randomPath();
          if (live.has(p) && rnd(2) === 0) {
            changes.set(p, null);
            live.delete(p);
            continue;
          }
          // A file and a directory cannot share a path: clear whatever is in the way.
          for (const q of [...live.keys()])
            if (q.startsWith(p + '/') || p.startsWith(q + '/')) {
              changes.set(q, null);
              live.delete(q);
            }
          const o = oid();
          changes.set(p, o);
          live.set(p, o);
        }
        const { next, root } = applyChanges(state, changes);
        state = { commit: null, ...next };
        const ref = fromScratch(live);
        expect(root).toBe(ref.dirs.get(''));
        expect(state.dirs).toEqual(ref.dirs);
        expect(state.files).toEqual(live);
      }
    }
  });

  it('reports only the trees that changed, and never mutates the previous state', () => {
    const files = new Map<string, string>();
    for (let d = 0; d < 50; d++) for (let f = 0; f < 20; f++) files.set(`r/d${d}/f${f}`, oid());
    const base = fromScratch(files);
    const before = JSON.stringify([...base.children].map(([k, v]) => [k, [...v]]));
    const { fresh, next } = applyChanges(base, new Map([['r/d7/f3', oid()]]));
    expect(fresh.map((t) => t.path).sort()).toEqual(['', 'r', 'r/d7']);
    expect(JSON.stringify([...base.children].map(([k, v]) => [k, [...v]]))).toBe(before);
    expect(next.dirs.get('r/d8')).toBe(base.dirs.get('r/d8'));
  });

  it('sorts entries as git does (a directory as if its name ended in /)', () => {
    const t = serializeTree([
      { name: 'a.b', mode: '100644', oid: '0'.repeat(40) },
      { name: 'a', mode: '40000', oid: '1'.repeat(40) },
      { name: 'a-b', mode: '100644', oid: '2'.repeat(40) },
    ]);
    const names = [...t.toString('latin1').matchAll(/\d+ ([^\0]+)\0/g)].map((m) => m[1]);
    expect(names).toEqual(['a-b', 'a.b', 'a']);
  });
});

describe('path helpers', () => {
  it('outermost keeps the paths no other one covers', () => {
    expect(outermost(['r/a/b', 'r/a', 'r/ab', 'x'])).toEqual(['r/a', 'r/ab', 'x']);
    expect(outermost(['r', ''])).toEqual(['']);
  });
  it('filesWithin finds a file, a directory or nothing', () => {
    const s = fromScratch(new Map([['r/a/x', '1'], ['r/ab', '2']]));
    expect([...filesWithin(s, 'r/a').keys()]).toEqual(['r/a/x']);
    expect([...filesWithin(s, 'r/ab').keys()]).toEqual(['r/ab']);
    expect(filesWithin(s, 'r/none').size).toBe(0);
    expect(filesWithin(s, '').size).toBe(2);
  });
});
