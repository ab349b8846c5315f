import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

// A history router of a few lines: the console has a dozen flat routes, no nested layouts or
// loaders, so react-router's size and API are not worth a dependency (docs/console.md).
export const BASE = '/app';

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', notify);

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

const snapshot = () => window.location.pathname + window.location.search;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = BASE + to;
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  notify();
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const current = useSyncExternalStore(subscribe, snapshot);
  const url = new URL(current, window.location.origin);
  const path = url.pathname.startsWith(BASE) ? url.pathname.slice(BASE.length).replace(/\/+$/, '') || '/' : '/';
  return { path, query: url.searchParams };
}

export function Link({ to, ...props }: { to: string } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { path } = useLocation();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    props.onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  // A link given its own aria-current (a section with pages under it) keeps it.
  return <a aria-current={path === to ? 'page' : undefined} {...props} href={BASE + to} onClick={onClick} />;
}

export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
