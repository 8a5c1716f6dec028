import { describe, expect, it } from 'vitest';
import { fallbackDirAbstract, type ChildInfo } from '../../plugins/semantic/summarize.js';

const file = (name: string, abstract: string): ChildInfo => ({ name, kind: 'file', size: 100, abstract });

describe("a directory's extractive L0", () => {
  it('names each file by its title, cut at ": " or a sentence end, never inside the file name', () => {
    const l0 = fallbackDirAbstract('docs', [
      file('architecture.md', 'Architecture (as built) (architecture.md): The design this code follows.'),
      file('guide.md', 'Guide (guide.md): How to start. Then more.'),
      file('notes.txt', 'notes.txt: three lines about v1.2 of the API.'),
      file('plan.md', 'A plan for the next release. It has steps.'),
      file('empty.md', ''),
      { name: 'img', kind: 'dir', size: 0, abstract: 'img/: 2 files.', entries: 2 },
    ]);
    expect(l0).toBe(
      'docs/: 5 files (4 md, 1 txt), 1 subdirectory. Contains: Architecture (as built) (architecture.md); Guide (guide.md); notes.txt; A plan for the next release (plan.md); empty.md; img/.',
    );
  });
  it('an empty directory says so', () => {
    expect(fallbackDirAbstract('x', [])).toBe('x/: empty directory.');
  });
});
