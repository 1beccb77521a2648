/** What the table's row buttons and inline edits do: test, keys, enable/disable, delete, balance, priority/weight, tag actions. */
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { useNavigate } from 'react-router';
import { isApiError } from '../../shared/apiError';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { succeeded } from '../../shared/succeeded';
import {
  COPY_SUFFIX,
  useCopyChannelMutation,
  useDeleteChannelMutation,
  useEditTagMutation,
  useSetTagStatusMutation,
  useTestChannelMutation,
  useUpdateChannelBalanceMutation,
  useUpdateChannelMutation,
} from './api';
import type { ColumnHandlers } from './columns';
import { CHANNEL_STATUS } from './constants';
import { actions as am, cells } from './messages';
import type { TagRow } from './tagRows';
import type { Channel } from './types';

const SECONDS_DIGITS = 2;
const BALANCE_DIGITS = 2;

/** A set of ids kept in state, with add/remove. */
function useIdSet(): [ReadonlySet<number>, (id: number, on: boolean) => void] {
  const [ids, setIds] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number, on: boolean) =>
    setIds((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });
  return [ids, toggle];
}

export function useRowHandlers(dialogs: {
  openModelTest: (c: Channel) => void;
  openKeys: (c: Channel) => void;
  openTagEdit: (row: TagRow) => void;
}): ColumnHandlers {
  const intl = useIntl();
  const navigate = useNavigate();
  const [testing, markTesting] = useIdSet();
  const [balancing, markBalancing] = useIdSet();
  const [test] = useTestChannelMutation();
  const [update] = useUpdateChannelMutation();
  const [remove] = useDeleteChannelMutation();
  const [copy] = useCopyChannelMutation();
  const [balance] = useUpdateChannelBalanceMutation();
  const [setTagStatus] = useSetTagStatusMutation();
  const [editTag] = useEditTagMutation();
  const saved = (ok: boolean) => {
    if (ok) toast.success(intl.formatMessage(cells.saved));
    return ok;
  };

  return {
    testing,
    balancing,
    onTest: async (c) => {
      markTesting(c.id, true);
      try {
        const r = await test({ id: c.id }).unwrap();
        toast.success(intl.formatMessage(am.testOk, { name: c.name, model: r.model, seconds: r.time.toFixed(SECONDS_DIGITS) }));
      } catch {
        // The failure was toasted with the upstream's message.
      } finally {
        markTesting(c.id, false);
      }
    },
    onTestModels: dialogs.openModelTest,
    onKeys: dialogs.openKeys,
    onToggle: async (c) => {
      const status = c.status === CHANNEL_STATUS.enabled ? CHANNEL_STATUS.disabled : CHANNEL_STATUS.enabled;
      if (await succeeded(update({ id: c.id, status }))) toast.success(intl.formatMessage(common.operationDone));
    },
    onEdit: (c) => navigate(`/channel/edit/${c.id}`),
    onDelete: async (c) => {
      if (await succeeded(remove(c.id))) toast.success(intl.formatMessage(am.deleted));
    },
    onCopy: async (c) => {
      try {
        await copy(c.id).unwrap();
        toast.success(intl.formatMessage(am.copied, { name: `${c.name}${COPY_SUFFIX}` }));
      } catch (e) {
        toast.error(intl.formatMessage(am.copyFailed, { message: isApiError(e) ? e.message : '' }));
      }
    },
    onUpdateBalance: async (c) => {
      markBalancing(c.id, true);
      try {
        const amount = await balance(c.id).unwrap();
        toast.success(intl.formatMessage(cells.balanceUpdated, { name: c.name, amount: amount.toFixed(BALANCE_DIGITS) }));
      } catch {
        // Toasted by the API layer (e.g. the type has no balance endpoint).
      } finally {
        markBalancing(c.id, false);
      }
    },
    onPriority: async (c, priority) => saved(await succeeded(update({ id: c.id, priority }))),
    onWeight: async (c, weight) => saved(await succeeded(update({ id: c.id, weight }))),
    onTagStatus: async (tag, enabled) => {
      const count = await setTagStatus({ tag, enabled })
        .unwrap()
        .catch(() => null);
      if (count !== null) toast.success(intl.formatMessage(am.tagStatusDone, { count, tag }));
    },
    onEditTag: dialogs.openTagEdit,
    onTagPriority: async (tag, priority) => saved(await succeeded(editTag({ tag, priority }))),
    onTagWeight: async (tag, weight) => saved(await succeeded(editTag({ tag, weight }))),
  };
}
