/** Shared pieces: data loading with its three states, pagination, dialogs, small formatting helpers. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

export interface Loaded<T> {
  data?: T;
  error?: Error;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); a late answer of an older run is dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], opts: { every?: number } = {}): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const run = useRef(0);
  const go = useCallback(
    (quiet = false) => {
      const id = ++run.current;
      if (!quiet) setState((s) => ({ ...s, loading: true }));
      load().then(
        (data) => id === run.current && setState({ data, loading: false }),
        (error: Error) => id === run.current && setState({ error, loading: false }),
      );
    },
    // The caller's deps decide when `load` is new (it is a fresh closure every render).
    deps,
  );
  useEffect(() => {
    go();
    if (!opts.every) return undefined;
    const t = setInterval(() => go(true), opts.every);
    return () => clearInterval(t);
  }, [go, opts.every]);
  return { ...state, reload: () => go() };
}

export function errorText(e: unknown): string {
  if (e instanceof ApiError) return `${e.code}: ${e.message}`;
  return e instanceof Error ? e.message : String(e);
}

export const Spinner = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="state loading" role="status" aria-live="polite">
    <span class="spin" aria-hidden="true" /> {label}
  </p>
);

export const ErrorBox = ({ error, retry }: { error: unknown; retry?: () => void }) => (
  <div class="state error" role="alert">
    <strong>Could not load.</strong> {errorText(error)}
    {retry && (
      <button type="button" class="link" onClick={retry}>
        Retry
      </button>
    )}
  </div>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="state empty">{children}</p>;

/** Loading, error, empty or the content: every list and panel goes through this. */
export function Async<T>({ state, empty, isEmpty, children }: { state: Loaded<T>; empty?: string; isEmpty?: (d: T) => boolean; children: (d: T) => ComponentChildren }) {
  if (state.error) return <ErrorBox error={state.error} retry={state.reload} />;
  if (state.data === undefined) return <Spinner />;
  const blank = isEmpty ? isEmpty(state.data) : Array.isArray(state.data) && state.data.length === 0;
  if (blank && empty) return <Empty>{empty}</Empty>;
  return <>{children(state.data)}</>;
}

/** Client-side pages over a list the API returns whole. */
export function Paged<T>({ items, size = 25, children }: { items: T[]; size?: number; children: (page: T[]) => ComponentChildren }) {
  const [page, setPage] = useState(0);
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = Math.min(page, pages - 1);
  return (
    <>
      {children(items.slice(p * size, p * size + size))}
      {pages > 1 && (
        <nav class="pager" aria-label="pages">
          <button type="button" disabled={p === 0} onClick={() => setPage(p - 1)}>
            Previous
          </button>
          <span>
            Page {p + 1} of {pages} ({items.length})
          </span>
          <button type="button" disabled={p >= pages - 1} onClick={() => setPage(p + 1)}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}

/** The console's list shape: a loaded list, paged, as a table; `head` is the header cells. */
export function ListTable<T>({ state, empty, size = 25, head, row }: { state: Loaded<T[]>; empty: string; size?: number; head: ComponentChildren; row: (item: T) => ComponentChildren }) {
  return (
    <Async state={state} empty={empty}>
      {(items) => (
        <Paged items={items} size={size}>
          {(page) => (
            <table>
              <thead>
                <tr>{head}</tr>
              </thead>
              <tbody>{page.map(row)}</tbody>
            </table>
          )}
        </Paged>
      )}
    </Async>
  );
}

/** A modal dialog (native <dialog>: focus is trapped and Escape closes it). */
export function Dialog({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    const close = () => onClose();
    d.addEventListener('close', close);
    return () => d.removeEventListener('close', close);
  }, []);
  return (
    <dialog ref={ref} aria-label={title}>
      <h2>{title}</h2>
      {children}
    </dialog>
  );
}

/** A button that asks before it acts and shows the action's error in place. */
export function Confirm({ label, question, action, onDone, danger = true }: { label: string; question: string; action: () => Promise<unknown>; onDone?: () => void; danger?: boolean }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const go = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await action();
      setOpen(false);
      onDone?.();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class={danger ? 'danger' : ''} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open && (
        <Dialog title={label} onClose={() => setOpen(false)}>
          <p>{question}</p>
          {error !== undefined && <ErrorBox error={error} />}
          <div class="row end">
            <button type="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="button" class={danger ? 'danger primary' : 'primary'} disabled={busy} onClick={go}>
              {busy ? 'Working…' : label}
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

/** Runs an action from a form or button; `error` and `busy` for the caller to show. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

export const fmtBytes = (n?: number) => (n === undefined ? '' : n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);
export const fmtTime = (t?: string | number | null) => {
  if (t === undefined || t === null || t === '') return '—';
  const d = typeof t === 'number' ? new Date(t < 1e12 ? t * 1000 : t) : new Date(t);
  return Number.isNaN(d.getTime()) ? String(t) : d.toLocaleString();
};

export const StatusBadge = ({ status }: { status: string }) => <span class={`badge s-${status}`}>{status}</span>;

export function navigate(path: string, query: Record<string, string> = {}) {
  const q = new URLSearchParams(query).toString();
  location.hash = `#/${path}${q ? `?${q}` : ''}`;
}
export const href = (path: string, query: Record<string, string> = {}) => {
  const q = new URLSearchParams(query).toString();
  return `#/${path}${q ? `?${q}` : ''}`;
};
