import { useEffect, useState } from 'preact/hooks';

/**
 * A small history router: the app has five pages, so a path and the query string are all the
 * state a link needs (time range, variables, the Explore query).
 */

export interface Location {
  path: string;
  params: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, params: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((l) => l()));

/** navigate moves to a URL of the app; replace keeps the history entry (picker changes). */
export function navigate(url: string, replace = false): void {
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  listeners.forEach((l) => l());
}

/** updateParams rewrites the current URL's query string in place. */
export function updateParams(change: (params: URLSearchParams) => void, replace = true): void {
  const params = new URLSearchParams(window.location.search);
  change(params);
  const qs = params.toString();
  navigate(window.location.pathname + (qs === '' ? '' : `?${qs}`), replace);
}

export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const listener = (): void => setLocation(current());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return location;
}

/** linkClick makes an <a href> navigate inside the app while keeping middle-click and new tabs. */
export function linkClick(event: MouseEvent): void {
  const anchor = event.currentTarget as HTMLAnchorElement;
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || anchor.target === '_blank') return;
  event.preventDefault();
  navigate(anchor.getAttribute('href') ?? '/');
}
