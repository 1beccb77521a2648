import { describe, expect, it } from 'vitest';
import { parseChats, sidebarSections, sidebarVisible } from './sidebarModel';

const keys = (f: Parameters<typeof sidebarSections>[0]) => sidebarSections(f).flatMap((s) => s.entries.map((e) => e.key));
const flags = { isAdmin: false, enableDataExport: false, enableDrawing: false, enableTask: false, chats: [] };

describe('sidebar', () => {
  it('shows dashboard, drawing and task entries only with their flags', () => {
    expect(keys(flags)).not.toContain('/detail');
    expect(keys(flags)).not.toContain('/midjourney');
    expect(keys({ ...flags, enableDataExport: true, enableDrawing: true, enableTask: true })).toEqual(
      expect.arrayContaining(['/detail', '/midjourney', '/task']),
    );
  });
  it('shows the admin section to admins only', () => {
    expect(keys(flags)).not.toContain('/user');
    expect(keys({ ...flags, isAdmin: true })).toEqual(
      expect.arrayContaining(['/channel', '/gateway', '/redemption', '/user', '/setting']),
    );
  });
  it('lists chat links from the chats setting', () => {
    expect(parseChats([{ ChatGPT: 'https://x' }, 'bad', { Other: 'y' }])).toEqual([
      { name: 'ChatGPT', index: 0 },
      { name: 'Other', index: 2 },
    ]);
    expect(parseChats('nope')).toEqual([]);
  });
  it('is hidden on home, chat and setup paths', () => {
    expect(sidebarVisible('/')).toBe(false);
    expect(sidebarVisible('/setup')).toBe(false);
    expect(sidebarVisible('/chat/1')).toBe(false);
    expect(sidebarVisible('/user')).toBe(true);
    expect(sidebarVisible('/personal')).toBe(true);
  });
});
