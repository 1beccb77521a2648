/**
 * Bulk actions of the channel list (spec 2 §2.4): test all, update all balances, delete
 * disabled, fix abilities, batch delete, batch tag. A running action spins its button and
 * shows a progress line; the result counts follow as a toast.
 */
import { Alert, Button, Flex, Popconfirm, Spin, Typography } from 'antd';
import { useState } from 'react';
import { useIntl, type MessageDescriptor } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import {
  useBatchDeleteChannelsMutation,
  useDeleteDisabledChannelsMutation,
  useFixAbilitiesMutation,
  useTestAllChannelsMutation,
  useUpdateAllBalancesMutation,
} from './api';
import { bulk as m } from './messages';
import { validateBatchDelete, validateSelection } from './rules';

type Running = { id: string; text: MessageDescriptor; values?: Record<string, number> } | null;

function ConfirmButton({
  id,
  label,
  confirm,
  confirmValues,
  running,
  onRun,
  danger,
  disabled,
}: {
  id: string;
  label: MessageDescriptor;
  confirm?: MessageDescriptor;
  confirmValues?: Record<string, number>;
  running: Running;
  onRun: () => void;
  danger?: boolean;
  disabled?: boolean;
}) {
  const intl = useIntl();
  const button = (
    <Button
      danger={danger}
      loading={running?.id === id}
      disabled={disabled || (running !== null && running.id !== id)}
      onClick={confirm ? undefined : onRun}
      data-testid={`bulk-${id}`}
    >
      {intl.formatMessage(label)}
    </Button>
  );
  if (!confirm) return button;
  return (
    <Popconfirm title={intl.formatMessage(confirm, confirmValues)} onConfirm={onRun} okButtonProps={{ danger }}>
      {button}
    </Popconfirm>
  );
}

export function BulkActions({
  selected,
  onSelectionDone,
  onBatchTag,
}: {
  selected: number[];
  onSelectionDone: () => void;
  onBatchTag: () => void;
}) {
  const intl = useIntl();
  const [running, setRunning] = useState<Running>(null);
  const [testAll] = useTestAllChannelsMutation();
  const [updateAll] = useUpdateAllBalancesMutation();
  const [deleteDisabled] = useDeleteDisabledChannelsMutation();
  const [fix] = useFixAbilitiesMutation();
  const [batchDelete] = useBatchDeleteChannelsMutation();

  /** Runs one action with its progress line; failures are toasted by the API layer. */
  async function run<T>(r: NonNullable<Running>, call: () => Promise<T>, done: (v: T) => string) {
    setRunning(r);
    try {
      const v = await call();
      toast.success(done(v));
      return true;
    } catch {
      return false;
    } finally {
      setRunning(null);
    }
  }

  const actions = {
    testAll: () =>
      run(
        { id: 'test-all', text: m.runningTestAll },
        () => testAll().unwrap(),
        (s) => intl.formatMessage(m.testAllDone, { ...s }),
      ),
    balances: () =>
      run(
        { id: 'balances', text: m.runningBalances },
        () => updateAll().unwrap(),
        (s) => intl.formatMessage(m.balancesDone, { ...s }),
      ),
    deleteDisabled: () =>
      run(
        { id: 'delete-disabled', text: m.runningDeleteDisabled },
        () => deleteDisabled().unwrap(),
        (count) => intl.formatMessage(m.deletedDisabled, { count }),
      ),
    fix: () =>
      run(
        { id: 'fix', text: m.runningFix },
        () => fix().unwrap(),
        (count) => intl.formatMessage(m.fixed, { count }),
      ),
    batchDelete: async () => {
      if (reportProblem(intl, validateBatchDelete(selected))) return;
      const ok = await run(
        { id: 'batch-delete', text: m.runningBatchDelete, values: { count: selected.length } },
        () => batchDelete(selected).unwrap(),
        (count) => intl.formatMessage(m.batchDeleted, { count }),
      );
      if (ok) onSelectionDone();
    },
    batchTag: () => {
      // The selection is checked here; the dialog checks the tag (validateBatchTag).
      if (!reportProblem(intl, validateSelection(selected))) onBatchTag();
    },
  };

  const none = selected.length === 0;
  return (
    <>
      <Flex gap={8} wrap align="center">
        <ConfirmButton id="test-all" label={m.testAll} running={running} onRun={actions.testAll} />
        <ConfirmButton id="balances" label={m.updateBalances} running={running} onRun={actions.balances} />
        <ConfirmButton
          id="delete-disabled"
          label={m.deleteDisabled}
          confirm={m.deleteDisabledConfirm}
          running={running}
          onRun={actions.deleteDisabled}
          danger
        />
        <ConfirmButton id="fix" label={m.fixAbilities} confirm={m.fixConfirm} running={running} onRun={actions.fix} />
        <ConfirmButton
          id="batch-delete"
          label={m.batchDelete}
          confirm={none ? undefined : m.batchDeleteConfirm}
          confirmValues={{ count: selected.length }}
          running={running}
          onRun={actions.batchDelete}
          danger
        />
        <ConfirmButton id="batch-tag" label={m.batchTag} running={running} onRun={actions.batchTag} />
        {!none && (
          <Typography.Text type="secondary" data-testid="channels-selected">
            {intl.formatMessage(m.selected, { count: selected.length })}
          </Typography.Text>
        )}
      </Flex>
      {running && (
        <Alert
          style={{ marginTop: 12 }}
          type="info"
          icon={<Spin size="small" />}
          showIcon
          title={intl.formatMessage(running.text, running.values)}
          data-testid="bulk-progress"
        />
      )}
    </>
  );
}
