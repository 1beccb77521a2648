/**
 * Unset-ratio models (spec 2 §2.1, §5.2): models enabled channels serve with neither a price nor a
 * ratio, priced in place or by a batch set on the selected rows, then saved into the pricing options.
 */
import { Alert, Button, Input, Space, Table, Typography } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { api } from '../../../app/api';
import { useAppDispatch } from '../../../app/hooks';
import { errorText, isApiError } from '../../../shared/apiError';
import { PAGE_SIZE_OPTIONS } from '../../../shared/constants';
import { toast } from '../../../shared/feedback';
import { common } from '../../../shared/messages';
import { reportProblem } from '../../../shared/problem';
import { usePageSize } from '../../../shared/usePageSize';
import { useGetUnsetModelsQuery, useUpdateOptionMutation } from '../api';
import type { Values } from '../panels';
import { saveOutcome } from '../savePlan';
import { sendUpdates } from '../sendUpdates';
import { BatchSetModal } from './BatchSetModal';
import { editor, unset as m } from './messages';
import {
  applyBatch,
  hasFixedPrice,
  parseMaps,
  planRatioSave,
  rowsFromMaps,
  validateBatch,
  type BatchInput,
  type PricingRow,
} from './rules';

type Cell = 'price' | 'ratio' | 'completionRatio';

const emptyRow = (name: string): PricingRow => ({ name, price: '', ratio: '', completionRatio: '' });
const edited = (r: PricingRow) => r.price.trim() !== '' || r.ratio.trim() !== '' || r.completionRatio.trim() !== '';

export function UnsetModels({ saved }: { saved: Values }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const { data: models = [], isFetching, error, refetch } = useGetUnsetModelsQuery();
  const [drafts, setDrafts] = useState<Record<string, PricingRow>>({});
  const [selected, setSelected] = useState<string[]>([]);
  const [batchOpen, setBatchOpen] = useState(false);
  const [pageSize, setPageSize] = usePageSize();
  const [busy, setBusy] = useState(false);
  const [update] = useUpdateOptionMutation();

  // The server's list, with what was typed or batch-set so far.
  const rows = useMemo(() => models.map((name) => drafts[name] ?? emptyRow(name)), [models, drafts]);

  const setCell = (name: string, cell: Cell, value: string) =>
    setDrafts((d) => ({ ...d, [name]: { ...(d[name] ?? emptyRow(name)), [cell]: value } }));

  const openBatch = () => {
    if (selected.length === 0) {
      reportProblem(intl, validateBatch(0, { mode: 'ratio', value: '', completionRatio: '' }));
      return;
    }
    setBatchOpen(true);
  };

  const applyBatchSet = (b: BatchInput) => {
    const chosen = new Set(selected);
    const next = applyBatch(rows, chosen, b);
    setDrafts((d) => ({ ...d, ...Object.fromEntries(next.filter((r) => chosen.has(r.name)).map((r) => [r.name, r])) }));
    setBatchOpen(false);
    toast.success(intl.formatMessage(m.applied, { count: chosen.size }));
  };

  const save = async () => {
    const plan = planRatioSave(saved, [...rowsFromMaps(parseMaps(saved)), ...rows.filter(edited)]);
    if ('problem' in plan) {
      reportProblem(intl, plan.problem);
      return;
    }
    setBusy(true);
    const failed = await sendUpdates(plan.updates, (u) => update(u).unwrap());
    setBusy(false);
    toast[failed === 0 ? 'success' : 'error'](intl.formatMessage(saveOutcome(failed, plan.updates.length)));
    if (failed === 0) {
      setDrafts({});
      setSelected([]);
    }
    dispatch(api.util.invalidateTags(['Option', 'Pricing', 'Models']));
  };

  const cell = (key: Cell, disabled: (r: PricingRow) => boolean) => (_: unknown, r: PricingRow) => (
    <Input
      size="small"
      value={r[key]}
      inputMode="decimal"
      disabled={disabled(r)}
      onChange={(e) => setCell(r.name, key, e.target.value)}
      style={{ width: 120 }}
      data-testid={`unset-${key}-${r.name}`}
    />
  );

  const columns: ColumnsType<PricingRow> = [
    { title: intl.formatMessage(editor.model), dataIndex: 'name', key: 'name' },
    { title: intl.formatMessage(editor.price), key: 'price', render: cell('price', () => false) },
    { title: intl.formatMessage(editor.ratio), key: 'ratio', render: cell('ratio', hasFixedPrice) },
    { title: intl.formatMessage(editor.completionRatio), key: 'completionRatio', render: cell('completionRatio', hasFixedPrice) },
  ];

  if (error) {
    const message = isApiError(error) ? errorText(intl, error) : String(error);
    return <Alert type="error" showIcon title={intl.formatMessage(m.loadFailed, { message })} />;
  }

  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="unset-models">
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {intl.formatMessage(m.intro)}
      </Typography.Paragraph>
      <Space wrap>
        <Button onClick={openBatch} data-testid="unset-batch">
          {intl.formatMessage(m.batchSet)}
        </Button>
        <Button type="primary" onClick={save} loading={busy} data-testid="unset-save">
          {intl.formatMessage(editor.saveChanges)}
        </Button>
        <Button onClick={() => refetch()} loading={isFetching} data-testid="unset-refresh">
          {intl.formatMessage(m.refresh)}
        </Button>
        {selected.length > 0 && <Typography.Text>{intl.formatMessage(m.selected, { count: selected.length })}</Typography.Text>}
      </Space>
      <Table
        rowKey="name"
        size="small"
        columns={columns}
        dataSource={rows}
        loading={isFetching && models.length === 0}
        locale={{ emptyText: intl.formatMessage(m.empty) }}
        rowSelection={{ selectedRowKeys: selected, onChange: (keys) => setSelected(keys.map(String)) }}
        pagination={{
          pageSize,
          pageSizeOptions: [...PAGE_SIZE_OPTIONS],
          showSizeChanger: true,
          onShowSizeChange: (_, size) => setPageSize(size),
          showTotal: (total) => intl.formatMessage(common.total, { total }),
        }}
        scroll={{ x: true }}
      />
      {batchOpen && <BatchSetModal selected={selected.length} onOk={applyBatchSet} onCancel={() => setBatchOpen(false)} />}
    </Space>
  );
}
