/** A link to a console page: a real href (open in a new tab works), followed in place on a plain click. */
import type { ReactNode } from 'react';
import { Link } from '@fluentui/react-components';
import { hrefOf, navigate, type Route } from './route';

export function RouteLink({ to, children, label }: { to: Route; children: ReactNode; label?: string }) {
  return (
    <Link
      href={hrefOf(to)}
      aria-label={label}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </Link>
  );
}
