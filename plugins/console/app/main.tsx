/** The console: sign-in, the shell (navigation, identity) and the hash router over the pages. */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, SIGNED_OUT, api, session, type Identity } from './api';
import { AdminPage } from './pages/admin';
import { BrowserPage } from './pages/browser';
import { OverviewPage } from './pages/overview';
import { PacksPage } from './pages/packs';
import { RetrievalPage } from './pages/retrieval';
import { SessionsPage } from './pages/sessions';
import { SkillsPage } from './pages/skills';
import { SnapshotsPage } from './pages/snapshots';
import { SystemPage } from './pages/system';
import { TasksPage } from './pages/tasks';
import { WatchesPage } from './pages/watches';
import { ErrorBox, Spinner, errorText } from './ui';
import './style.css';

export interface PageProps {
  me: Identity;
  query: URLSearchParams;
}

const PAGES: Array<{ path: string; label: string; admin?: boolean; page: (p: PageProps) => preact.JSX.Element }> = [
  { path: 'overview', label: 'Overview', page: OverviewPage },
  { path: 'browser', label: 'Browser', page: BrowserPage },
  { path: 'retrieval', label: 'Retrieval', page: RetrievalPage },
  { path: 'sessions', label: 'Sessions', page: SessionsPage },
  { path: 'skills', label: 'Skills', page: SkillsPage },
  { path: 'watches', label: 'Watches', page: WatchesPage },
  { path: 'tasks', label: 'Tasks', page: TasksPage },
  { path: 'packs', label: 'Packs', page: PacksPage },
  { path: 'snapshots', label: 'Snapshots', page: SnapshotsPage },
  { path: 'admin', label: 'Admin', admin: true, page: AdminPage },
  { path: 'system', label: 'System', page: SystemPage },
];

const isAdmin = (me: Identity) => me.role === 'ROOT' || me.role === 'ADMIN';

function parseHash(): { path: string; query: URLSearchParams } {
  const h = location.hash.replace(/^#\/?/, '');
  const [path = '', q = ''] = h.split('?');
  return { path: path || 'overview', query: new URLSearchParams(q) };
}

function useHash() {
  const [route, setRoute] = useState(parseHash);
  useEffect(() => {
    const on = () => setRoute(parseHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

function SignIn({ onSignedIn, notice }: { onSignedIn: (me: Identity) => void; notice?: string }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(notice);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    session.set(key.trim());
    try {
      onSignedIn(await api.whoami());
    } catch (err) {
      session.clear();
      setError(err instanceof ApiError && err.status === 401 ? 'That key was not accepted.' : errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin">
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">ctx console</h1>
        <p class="muted">Sign in with your API key. It is kept in this tab only (session storage) and sent to this server alone.</p>
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autocomplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} autoFocus />
        {error && (
          <p class="state error" role="alert">
            {error}
          </p>
        )}
        <button class="primary" type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Shell({ me, dev, onSignOut }: { me: Identity; dev: boolean; onSignOut: () => void }) {
  const { path, query } = useHash();
  const [navOpen, setNavOpen] = useState(false);
  const visible = PAGES.filter((p) => !p.admin || isAdmin(me));
  const current = PAGES.find((p) => p.path === path);
  useEffect(() => setNavOpen(false), [path]);
  // A new page moves focus to its content (as a page load would), so keyboard and screen-reader
  // users start there; a change of the query alone (a tree selection) leaves focus where it is.
  const mounted = useRef(false);
  useEffect(() => {
    if (mounted.current) document.getElementById('main')?.focus({ preventScroll: true });
    mounted.current = true;
  }, [path]);
  // The moment the console is usable (the benchmark reads it: bench/console.bench.ts).
  useEffect(() => void performance.mark('ctx-console-interactive'), []);
  useEffect(() => {
    document.title = `${current?.label ?? 'Not found'} · ctx console`;
  }, [current]);
  let body;
  if (!current) body = <ErrorBox error={new Error(`no page "${path}"`)} />;
  else if (current.admin && !isAdmin(me))
    body = (
      <div class="state error" role="alert" data-denied="admin">
        <strong>Not allowed.</strong> The {current.label} pages need the ADMIN or ROOT role; you are {me.role}.
      </div>
    );
  else body = <current.page me={me} query={query} />;
  return (
    <div class={`shell ${navOpen ? 'nav-open' : ''}`}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <button type="button" class="menu" aria-expanded={navOpen} aria-controls="nav" onClick={() => setNavOpen(!navOpen)}>
          Menu
        </button>
        <span class="brand">ctx</span>
        <span class="who" data-testid="identity">
          <span title="account">{me.account_id}</span> / <span title="user">{me.user_id}</span> <span class={`badge role-${me.role}`}>{me.role}</span>
          {dev && <span class="badge dev">dev mode</span>}
        </span>
        {!dev && (
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        )}
      </header>
      <nav id="nav" class="side" aria-label="pages">
        <ul>
          {visible.map((p) => (
            <li key={p.path}>
              <a href={`#/${p.path}`} aria-current={p.path === path ? 'page' : undefined}>
                {p.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <h1 class="page-title">{current?.label ?? 'Not found'}</h1>
        {body}
      </main>
    </div>
  );
}

// Asked before the first render, so the identity is on its way while Preact mounts.
const early = api.devMode() || session.key() ? api.whoami() : null;
early?.catch(() => undefined);

function App() {
  const [state, setState] = useState<{ me?: Identity; dev: boolean; ready: boolean; error?: unknown; notice?: string }>({ dev: false, ready: false });
  useEffect(() => {
    (async () => {
      try {
        const dev = api.devMode();
        // Dev mode serves loopback callers without a key: sign in as the dev identity at once.
        if (dev || session.key()) {
          try {
            const me = await (early ?? api.whoami());
            return setState({ me, dev, ready: true });
          } catch (e) {
            session.clear();
            if (!(e instanceof ApiError && e.status === 401)) throw e;
            return setState({ dev, ready: true, notice: 'Your session ended: sign in again.' });
          }
        }
        setState({ dev: false, ready: true });
      } catch (error) {
        setState({ dev: false, ready: true, error });
      }
    })();
  }, []);
  useEffect(() => {
    const out = () => {
      session.clear();
      setState({ dev: false, ready: true, notice: 'Your key is no longer accepted: sign in again.' });
    };
    addEventListener(SIGNED_OUT, out);
    return () => removeEventListener(SIGNED_OUT, out);
  }, []);
  if (!state.ready) return <Spinner label="Starting…" />;
  if (state.error) return <ErrorBox error={state.error} retry={() => location.reload()} />;
  if (!state.me) return <SignIn notice={state.notice} onSignedIn={(me) => setState({ me, dev: false, ready: true })} />;
  return (
    <Shell
      me={state.me}
      dev={state.dev}
      onSignOut={() => {
        session.clear();
        setState({ dev: false, ready: true });
        location.hash = '';
      }}
    />
  );
}

render(<App />, document.getElementById('app')!);
document.documentElement.dataset.ready = 'true';
