/** The sidebar's sections and entries (spec 3 §2.10) as data, decided by role and local flags. */
import type { MessageDescriptor } from 'react-intl';
import { sidebar as m } from './messages';

export interface SidebarEntry {
  key: string;
  label: MessageDescriptor | string;
}

export interface SidebarSection {
  key: string;
  label: MessageDescriptor;
  entries: SidebarEntry[];
}

export interface SidebarFlags {
  isAdmin: boolean;
  enableDataExport: boolean;
  enableDrawing: boolean;
  enableTask: boolean;
  chats: { name: string; index: number }[];
}

/** Chat links stored under `chats`: a list of {name: link} objects. */
export function parseChats(value: unknown): { name: string; index: number }[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry, index) =>
    entry && typeof entry === 'object'
      ? Object.keys(entry)
          .slice(0, 1)
          .map((name) => ({ name, index }))
      : [],
  );
}

export function sidebarSections(f: SidebarFlags): SidebarSection[] {
  const sections: SidebarSection[] = [
    {
      key: 'chat',
      label: m.sectionChat,
      entries: [{ key: '/playground', label: m.playground }, ...f.chats.map((c) => ({ key: `/chat/${c.index}`, label: c.name }))],
    },
    {
      key: 'console',
      label: m.sectionConsole,
      entries: [
        ...(f.enableDataExport ? [{ key: '/detail', label: m.dashboard }] : []),
        { key: '/token', label: m.tokens },
        { key: '/log', label: m.logs },
        ...(f.enableDrawing ? [{ key: '/midjourney', label: m.drawing }] : []),
        ...(f.enableTask ? [{ key: '/task', label: m.tasks }] : []),
      ],
    },
  ];
  if (f.isAdmin) {
    sections.push({
      key: 'admin',
      label: m.sectionAdmin,
      entries: [
        { key: '/channel', label: m.channels },
        { key: '/gateway', label: m.gateways },
        { key: '/redemption', label: m.redemption },
        { key: '/user', label: m.users },
        { key: '/setting', label: m.settings },
      ],
    });
  }
  sections.push({
    key: 'personal',
    label: m.sectionPersonal,
    entries: [
      { key: '/topup', label: m.wallet },
      { key: '/personal', label: m.personal },
    ],
  });
  return sections;
}

/** The sidebar is hidden on home, chat and setup paths (spec 2 §2.8). */
export function sidebarVisible(pathname: string): boolean {
  if (pathname === '' || pathname === '/') return false;
  return !['/setup', '/chat', '/login', '/register', '/reset', '/oauth', '/user/reset'].some(
    (p) => pathname === p || pathname.startsWith(`${p}/`),
  );
}
