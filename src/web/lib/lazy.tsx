import type { ComponentType, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * lazyComponent loads a component's module on first use, so code one page needs (Explore's
 * CodeMirror, the dashboard editor) stays out of the script every page waits for. Until the
 * module arrives it draws `fallback` (nothing when empty); a failed load (a deploy replaced the hashed file) says so.
 */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>, fallback = 'Loading…'): (props: P) => JSX.Element | null {
  let loaded: ComponentType<P> | undefined;
  let pending: Promise<ComponentType<P>> | undefined;
  return function Lazy(props: P) {
    const [component, setComponent] = useState<ComponentType<P> | undefined>(() => loaded);
    const [failed, setFailed] = useState<string>();
    useEffect(() => {
      if (component) return;
      pending ??= load().then((c) => (loaded = c));
      pending.then(
        (c) => setComponent(() => c),
        (err: unknown) => {
          pending = undefined;
          setFailed(err instanceof Error ? err.message : String(err));
        },
      );
    }, []);
    if (failed) {
      return (
        <p class="panel-error page" role="alert">
          This part of the app could not be loaded ({failed}); reload the page.
        </p>
      );
    }
    if (!component) return fallback === '' ? null : <p class="muted page">{fallback}</p>;
    const C = component;
    return <C {...props} />;
  };
}
