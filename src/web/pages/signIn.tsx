import { useState } from 'preact/hooks';
import { RequestFailure, session, type Session } from '../lib/api.js';

/** SignIn takes an API key; the server checks it and keeps it in an HttpOnly cookie. */
export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      onSignedIn(await session.signIn(key.trim()));
    } catch (err) {
      setError(err instanceof RequestFailure ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <form onSubmit={submit} aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Sluice</h1>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" placeholder="slk_…" value={key} onInput={(e) => setKey(e.currentTarget.value)} required autoFocus />
        <p class="muted">The key is kept in an HttpOnly cookie of this site; sign out removes it.</p>
        {error && (
          <p class="panel-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || key.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
