import { render } from 'preact';
import { useLayoutEffect, useState } from 'preact/hooks';
import { onUnauthorized, session, type Session } from './lib/api.js';
import { linkClick, navigate, useLocation } from './lib/router.js';
import { DashboardList } from './pages/dashboardList.js';
import { DashboardView } from './pages/dashboardView.js';
import { SignIn } from './pages/signIn.js';
import { lazyComponent } from './lib/lazy.js';
import { markAppStart } from './lib/marks.js';
import { rememberOrg } from './lib/early.js';
import './styles.css';

markAppStart();

/** Explore carries CodeMirror and the PromQL language: loaded only when opened. */
const Explore = lazyComponent(() => import('./pages/explore.js').then((m) => m.Explore));

/**
 * App asks the server who the cookie signs in as, shows sign-in when nobody, and otherwise the
 * page the path names. Any 401 later (a revoked key) returns to sign-in.
 */
function App() {
  const location = useLocation();
  const [who, setWho] = useState<Session | null | undefined>(undefined);
  // A layout effect takes the session answer index.html asked for as soon as the app is in the
  // page; an effect would first wait for the browser to paint "Loading…" (a frame or more).
  useLayoutEffect(() => {
    onUnauthorized(() => setWho(null));
    session.current().then(
      (s) => {
        rememberOrg(s.org);
        setWho(s);
      },
      () => setWho(null),
    );
  }, []);
  if (who === undefined) return <p class="muted page">Loading…</p>;
  if (who === null || who.org === undefined) {
    return (
      <SignIn
        onSignedIn={(s) => {
          setWho(s);
          if (location.path === '/signin') navigate('/dashboards', true);
        }}
      />
    );
  }
  const org = who.org;
  const path = location.path;
  const dashboardMatch = /^\/dashboards\/([^/]+)\/?$/.exec(path);
  let page;
  if (dashboardMatch) page = <DashboardView org={org} id={decodeURIComponent(dashboardMatch[1])} location={location} />;
  else if (path.startsWith('/explore')) page = <Explore org={org} location={location} />;
  else page = <DashboardList org={org} />;
  const signOut = async (): Promise<void> => {
    await session.signOut().catch(() => undefined);
    rememberOrg(undefined);
    setWho(null);
    navigate('/signin', true);
  };
  return (
    <>
      <nav class="topbar" aria-label="Main">
        <a href="/dashboards" class="brand" onClick={linkClick}>
          Sluice
        </a>
        <a href="/dashboards" onClick={linkClick} aria-current={path === '/' || path.startsWith('/dashboards') ? 'page' : undefined}>
          Dashboards
        </a>
        <a href="/explore" onClick={linkClick} aria-current={path.startsWith('/explore') ? 'page' : undefined}>
          Explore
        </a>
        <span class="spacer" />
        <span class="muted">org {org}</span>
        <button onClick={signOut}>Sign out</button>
      </nav>
      {page}
    </>
  );
}

render(<App />, document.getElementById('app')!);
