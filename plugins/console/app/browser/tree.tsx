/**
 * The ctx:// tree: lazy (a directory's children load when it opens, 500 per page, the next page when
 * its "more" row scrolls into view), virtualized (only the rows in view are in the DOM, so a
 * directory of thousands of entries scrolls as fast as one of ten) and keyboard navigable as an
 * ARIA tree: focus stays on the tree, `aria-activedescendant` names the active row.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, type Entry } from '../api';
import { errorText } from '../ui';

export const ROW = 28;
const PAGE = 500;
const OVERSCAN = 12;

interface Dir {
  entries: Entry[];
  done: boolean;
  loading: boolean;
  error?: string;
}

interface Row {
  key: string;
  depth: number;
  entry?: Entry;
  more?: string; // the directory whose next page this row loads
  note?: string;
}

export const parentOf = (uri: string) => {
  const i = uri.replace(/\/$/, '').lastIndexOf('/');
  return i > 'ctx://'.length ? uri.slice(0, i) : 'ctx://';
};
const under = (root: string, uri: string) => uri === root || uri.startsWith(root.endsWith('/') ? root : root + '/');
const nameOf = (uri: string) => uri.replace(/\/$/, '').split('/').pop() || uri;

export function Tree({ roots, initiallyOpen, selected, onSelect, version }: { roots: string[]; initiallyOpen: string[]; selected?: string; onSelect: (uri: string, isDir: boolean) => void; version: number }) {
  const [dirs, setDirs] = useState<Map<string, Dir>>(new Map());
  const [open, setOpen] = useState<Set<string>>(() => new Set([...roots, ...initiallyOpen]));
  const [active, setActive] = useState(0);
  const [scroll, setScroll] = useState(0);
  const [height, setHeight] = useState(480);
  const box = useRef<HTMLDivElement>(null);
  const dirsRef = useRef(dirs);
  dirsRef.current = dirs;

  const inflight = useRef(new Set<string>());
  const load = async (uri: string, reset = false) => {
    // One listing per directory at a time (mount, a reload and a scroll may all ask at once).
    if (inflight.current.has(uri)) return;
    inflight.current.add(uri);
    const cur = dirsRef.current.get(uri);
    const offset = reset || !cur ? 0 : cur.entries.length;
    setDirs((m) => new Map(m).set(uri, { entries: reset ? [] : (cur?.entries ?? []), done: false, loading: true }));
    try {
      const page = (await api.ls(uri, offset, PAGE)).filter((e) => typeof e === 'object');
      setDirs((m) => {
        const prev = reset ? [] : (m.get(uri)?.entries ?? []);
        const seen = new Set(prev.map((e) => e.uri));
        return new Map(m).set(uri, { entries: [...prev, ...page.filter((e) => !seen.has(e.uri))], done: page.length < PAGE, loading: false });
      });
    } catch (e) {
      setDirs((m) => new Map(m).set(uri, { entries: cur?.entries ?? [], done: true, loading: false, error: errorText(e) }));
    } finally {
      inflight.current.delete(uri);
    }
  };

  // A change elsewhere (upload, write, move, delete) bumps `version`: forget every listing; what is
  // open and still listed loads again (a directory that was just removed is not asked for).
  useEffect(() => {
    if (version) setDirs(new Map());
  }, [version]);

  // Open the ancestors of a URI selected from elsewhere (a find hit, a link).
  useEffect(() => {
    if (!selected) return;
    const root = roots.find((r) => under(r, selected));
    if (!root) return;
    const chain: string[] = [];
    for (let u = parentOf(selected); u.length >= root.length && u !== chain[chain.length - 1]; u = parentOf(u)) {
      chain.push(u);
      if (u === root) break;
    }
    setOpen((s) => {
      const n = new Set(s);
      for (const u of chain) n.add(u);
      return n;
    });
  }, [selected]);

  // Only directories that are listed (or roots) load: an open path that does not exist (a user
  // space not created yet) is never asked for, so it never 404s.
  useEffect(() => {
    for (const uri of open)
      if (!dirs.has(uri) && (roots.includes(uri) || dirs.get(parentOf(uri))?.entries.some((e) => e.uri === uri && e.isDir))) load(uri);
  }, [open, dirs]);

  useEffect(() => {
    const el = box.current!;
    const ro = new ResizeObserver(() => setHeight(el.clientHeight));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const rows = useMemo(() => {
    const out: Row[] = [];
    const walk = (uri: string, depth: number) => {
      const d = dirs.get(uri);
      if (!d) return out.push({ key: uri + '#loading', depth, note: 'Loading…' });
      for (const e of d.entries) {
        out.push({ key: e.uri, depth, entry: e });
        if (e.isDir && open.has(e.uri)) walk(e.uri, depth + 1);
      }
      if (d.error) out.push({ key: uri + '#error', depth, note: `Could not list: ${d.error}` });
      else if (d.loading) out.push({ key: uri + '#loading', depth, note: 'Loading…' });
      else if (!d.done) out.push({ key: uri + '#more', depth, more: uri, note: 'Loading more…' });
      else if (d.entries.length === 0) out.push({ key: uri + '#empty', depth, note: 'Empty directory' });
    };
    for (const r of roots) {
      out.push({ key: r, depth: 0, entry: { uri: r, name: r, isDir: true } });
      if (open.has(r)) walk(r, 1);
    }
    return out;
  }, [dirs, open, roots]);

  // Keep the active row on the selected node when it appears.
  useEffect(() => {
    if (!selected) return;
    const i = rows.findIndex((r) => r.entry?.uri === selected);
    if (i >= 0 && i !== active) {
      setActive(i);
      reveal(i);
    }
  }, [selected, rows.length]);

  const first = Math.max(0, Math.floor(scroll / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((scroll + height) / ROW) + OVERSCAN);
  const windowRows = rows.slice(first, last);

  // A "more" row in view loads the next page.
  useEffect(() => {
    for (const r of windowRows) if (r.more) load(r.more);
  }, [first, last, rows]);

  const reveal = (i: number) => {
    const el = box.current;
    if (!el) return;
    if (i * ROW < el.scrollTop) el.scrollTop = i * ROW;
    else if ((i + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = (i + 1) * ROW - el.clientHeight;
  };
  const toggle = (uri: string, to?: boolean) =>
    setOpen((s) => {
      const n = new Set(s);
      if (to ?? !n.has(uri)) n.add(uri);
      else n.delete(uri);
      return n;
    });
  const choose = (i: number) => {
    const e = rows[i]?.entry;
    if (!e) return;
    setActive(i);
    onSelect(e.uri, e.isDir);
  };
  const move = (i: number) => {
    const j = Math.max(0, Math.min(rows.length - 1, i));
    setActive(j);
    reveal(j);
  };
  const onKey = (ev: KeyboardEvent) => {
    const row = rows[active];
    const e = row?.entry;
    switch (ev.key) {
      case 'ArrowDown': move(active + 1); break;
      case 'ArrowUp': move(active - 1); break;
      case 'Home': move(0); break;
      case 'End': move(rows.length - 1); break;
      case 'PageDown': move(active + Math.floor(height / ROW)); break;
      case 'PageUp': move(active - Math.floor(height / ROW)); break;
      case 'ArrowRight':
        if (e?.isDir && !open.has(e.uri)) toggle(e.uri, true);
        else if (e?.isDir) move(active + 1);
        break;
      case 'ArrowLeft':
        if (e?.isDir && open.has(e.uri)) toggle(e.uri, false);
        else if (row) {
          const p = row.entry ? parentOf(row.entry.uri) : '';
          const i = rows.findIndex((r) => r.entry?.uri === p);
          if (i >= 0) move(i);
        }
        break;
      case 'Enter':
      case ' ':
        choose(active);
        if (e?.isDir) toggle(e.uri, true);
        break;
      default:
        return;
    }
    ev.preventDefault();
  };

  return (
    <div
      ref={box}
      class="tree"
      role="tree"
      aria-label="ctx:// tree"
      tabIndex={0}
      aria-activedescendant={rows[active] ? `row-${active}` : undefined}
      onKeyDown={onKey}
      onScroll={(e) => setScroll(e.currentTarget.scrollTop)}
      data-rows={rows.length}
    >
      <div class="tree-space" style={{ height: `${rows.length * ROW}px` }}>
        {windowRows.map((r, k) => {
          const i = first + k;
          const e = r.entry;
          return (
            <div
              key={r.key}
              id={`row-${i}`}
              role={e ? 'treeitem' : 'presentation'}
              aria-level={r.depth + 1}
              aria-expanded={e?.isDir ? open.has(e.uri) : undefined}
              aria-selected={e ? e.uri === selected : undefined}
              class={`trow ${i === active ? 'active' : ''} ${e && e.uri === selected ? 'selected' : ''} ${e ? '' : 'note'}`}
              style={{ top: `${i * ROW}px`, paddingLeft: `${8 + r.depth * 16}px` }}
              data-uri={e?.uri}
              onClick={() => {
                if (!e) return;
                choose(i);
                if (e.isDir) toggle(e.uri);
              }}
            >
              {e ? (
                <>
                  <span class="twisty" aria-hidden="true">{e.isDir ? (open.has(e.uri) ? '▾' : '▸') : ''}</span>
                  {r.depth === 0 ? <span>{e.uri}</span> : <span class={e.isDir ? 'dir' : 'file'}>{nameOf(e.uri)}</span>}
                  {e.access === 'denied' && <span class="badge">denied</span>}
                </>
              ) : (
                <span class="muted">{r.note}</span>
              )}
            </div>
          );
        })}
      </div>
    </div>
  );
}
