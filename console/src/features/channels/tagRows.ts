/** Rows of the channel table: plain channels, or (tag mode) one expandable row per tag with its members. */
import { CHANNEL_STATUS } from './constants';
import { commaList } from './rules';
import type { Channel } from './types';

export interface ChannelRow {
  kind: 'channel';
  key: string;
  channel: Channel;
}

export interface TagRow {
  kind: 'tag';
  key: string;
  tag: string;
  children: ChannelRow[];
  /** Union of the members' models and groups, first-seen order. */
  models: string[];
  groups: string[];
  enabled: number;
  /** The members' common priority / weight, or null when they differ. */
  priority: number | null;
  weight: number | null;
  usedQuota: number;
}

export type TableRow = ChannelRow | TagRow;

const channelRow = (channel: Channel): ChannelRow => ({ kind: 'channel', key: `channel-${channel.id}`, channel });

function union(lists: string[][]): string[] {
  const out: string[] = [];
  for (const list of lists) for (const x of list) if (!out.includes(x)) out.push(x);
  return out;
}

function common(values: number[]): number | null {
  return values.every((v) => v === values[0]) ? (values[0] ?? null) : null;
}

function tagRow(tag: string, members: Channel[]): TagRow {
  return {
    kind: 'tag',
    key: `tag-${tag}`,
    tag,
    children: members.map(channelRow),
    models: union(members.map((c) => commaList(c.models))),
    groups: union(members.map((c) => commaList(c.group))),
    enabled: members.filter((c) => c.status === CHANNEL_STATUS.enabled).length,
    priority: common(members.map((c) => c.priority)),
    weight: common(members.map((c) => c.weight)),
    usedQuota: members.reduce((s, c) => s + c.used_quota, 0),
  };
}

/** The table rows; in tag mode channels sharing a tag become one row (order of first appearance). */
export function tableRows(channels: readonly Channel[], tagMode: boolean): TableRow[] {
  if (!tagMode) return channels.map(channelRow);
  const order: (Channel | string)[] = [];
  const byTag = new Map<string, Channel[]>();
  for (const c of channels) {
    const tag = c.tag.trim();
    if (tag === '') {
      order.push(c);
      continue;
    }
    const members = byTag.get(tag);
    if (members) members.push(c);
    else {
      byTag.set(tag, [c]);
      order.push(tag);
    }
  }
  return order.map((x) => (typeof x === 'string' ? tagRow(x, byTag.get(x) ?? []) : channelRow(x)));
}

/** The channels shown on the rows (members of tag rows included). */
export function rowChannels(rows: readonly TableRow[]): Channel[] {
  return rows.flatMap((r) => (r.kind === 'tag' ? r.children.map((c) => c.channel) : [r.channel]));
}
