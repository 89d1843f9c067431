'use client';
// The main navigation; the current section is marked for sighted users and screen readers alike.
import Link from 'next/link';
import { usePathname } from 'next/navigation';

const sections = [
  { href: '/', label: 'Overview' },
  { href: '/hosts', label: 'Hosts' },
  { href: '/proxies', label: 'Proxies' },
  { href: '/sets', label: 'Sets' },
  { href: '/gateway', label: 'Gateway' },
  { href: '/settings', label: 'Settings' },
] as const;

const isCurrent = (pathname: string, href: string): boolean => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`));

export function NavLinks() {
  const pathname = usePathname() ?? '/';
  return (
    <ul className="flex gap-1 overflow-x-auto">
      {sections.map((section) => {
        const current = isCurrent(pathname, section.href);
        return (
          <li key={section.href}>
            <Link
              href={section.href}
              aria-current={current ? 'page' : undefined}
              className={`block whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white ${
                current ? 'bg-slate-700 text-white' : 'text-slate-200 hover:bg-slate-800 hover:text-white'
              }`}
            >
              {section.label}
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
