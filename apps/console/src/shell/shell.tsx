import { useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { supabase } from '../api/supabase';
import { useSession } from '../auth/session';
import { Link, navigate, useLocation } from '../router';

export function Shell({ sections, children }: { sections: { path: string; label: string }[]; children: ReactNode }) {
  const { session } = useSession();
  const queryClient = useQueryClient();
  const { path } = useLocation();
  async function signOut() {
    await supabase.auth.signOut();
    queryClient.clear();
    navigate('/sign-in', { replace: true });
  }
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Engage</span>
        <span className="who" dir="auto">
          {session?.user.email}
        </span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main" className="sidebar">
        <ul>
          {sections.map((section) => (
            <li key={section.path}>
              <Link to={section.path} aria-current={path === section.path || path.startsWith(`${section.path}/`) ? 'page' : undefined}>
                {section.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" className="content">
        {children}
      </main>
    </div>
  );
}
