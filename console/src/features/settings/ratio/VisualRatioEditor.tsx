/**
 * The visual ratio editor (spec 2 §2.1, §4.5): every priced model in a searchable table paged by
 * 10, added, edited and deleted locally, then saved as the changed pricing option keys.
 */
import { SearchOutlined } from '@ant-design/icons';
import { Alert, Button, Input, Popconfirm, Space, Table, Tag } from 'antd';
import type { ColumnsType } from 'antd/es/table';
import { useMemo, useState, type HTMLAttributes } from 'react';
import { useIntl } from 'react-intl';
import { api } from '../../../app/api';
import { useAppDispatch } from '../../../app/hooks';
import { toast } from '../../../shared/feedback';
import { common } from '../../../shared/messages';
import { reportProblem } from '../../../shared/problem';
import { useUpdateOptionMutation } from '../api';
import type { Values } from '../panels';
import { saveOutcome } from '../savePlan';
import { sendUpdates } from '../sendUpdates';
import { editor as m } from './messages';
import { ModelPricingModal } from './ModelPricingModal';
import {
  filterRows,
  hasFixedPrice,
  millionTokenPrices,
  parseMaps,
  planRatioSave,
  rowsFromMaps,
  VISUAL_EDITOR_PAGE_SIZE,
  type PricingRow,
} from './rules';

/** Which dialog is open: none, add, or edit of one model. */
type Dialog = { kind: 'none' } | { kind: 'add' } | { kind: 'edit'; row: PricingRow };

/** Mount with a key of the saved pricing values: it starts from them. */
export function VisualRatioEditor({ saved }: { saved: Values }) {
  const intl = useIntl();
  const dispatch = useAppDispatch();
  const [rows, setRows] = useState<PricingRow[]>(() => rowsFromMaps(parseMaps(saved)));
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const [dialog, setDialog] = useState<Dialog>({ kind: 'none' });
  const [busy, setBusy] = useState(false);
  const [update] = useUpdateOptionMutation();

  const shown = useMemo(() => filterRows(rows, search), [rows, search]);
  const dirty = useMemo(() => 'updates' in planRatioSave(saved, rows), [saved, rows]);
  const names = rows.map((r) => r.name);

  const upsert = (row: PricingRow, replacing?: string) => {
    setRows((rs) => {
      const next = replacing === undefined ? [...rs, row] : rs.map((r) => (r.name === replacing ? row : r));
      return next.sort((a, b) => a.name.localeCompare(b.name));
    });
    setDialog({ kind: 'none' });
  };

  const save = async () => {
    const plan = planRatioSave(saved, rows);
    if ('problem' in plan) {
      reportProblem(intl, plan.problem);
      return;
    }
    setBusy(true);
    const failed = await sendUpdates(plan.updates, (u) => update(u).unwrap());
    setBusy(false);
    toast[failed === 0 ? 'success' : 'error'](intl.formatMessage(saveOutcome(failed, plan.updates.length)));
    dispatch(api.util.invalidateTags(['Option', 'Pricing', 'Models']));
  };

  const columns: ColumnsType<PricingRow> = [
    { title: intl.formatMessage(m.model), dataIndex: 'name', key: 'name' },
    {
      title: intl.formatMessage(m.billing),
      key: 'billing',
      render: (_, r) =>
        hasFixedPrice(r) ? (
          <Tag color="orange">{intl.formatMessage(m.perRequest)}</Tag>
        ) : (
          <Tag color="blue">{intl.formatMessage(m.perToken)}</Tag>
        ),
    },
    { title: intl.formatMessage(m.price), dataIndex: 'price', key: 'price' },
    {
      title: intl.formatMessage(m.ratio),
      dataIndex: 'ratio',
      key: 'ratio',
      render: (v: string, r) => (hasFixedPrice(r) ? '' : v),
    },
    {
      title: intl.formatMessage(m.completionRatio),
      dataIndex: 'completionRatio',
      key: 'completionRatio',
      render: (v: string, r) => (hasFixedPrice(r) ? '' : v),
    },
    {
      title: intl.formatMessage(m.millionPrice),
      key: 'million',
      render: (_, r) => {
        if (hasFixedPrice(r)) return intl.formatMessage(m.requestPriceValue, { price: r.price });
        const p = millionTokenPrices(r);
        return p ? intl.formatMessage(m.millionPriceValue, p) : '';
      },
    },
    {
      title: intl.formatMessage(m.actions),
      key: 'actions',
      render: (_, r) => (
        <Space>
          <Button size="small" onClick={() => setDialog({ kind: 'edit', row: r })} data-testid={`ratio-edit-${r.name}`}>
            {intl.formatMessage(common.edit)}
          </Button>
          <Popconfirm
            title={intl.formatMessage(m.deleteConfirm, { name: r.name })}
            onConfirm={() => setRows((rs) => rs.filter((x) => x.name !== r.name))}
          >
            <Button size="small" danger data-testid={`ratio-delete-${r.name}`}>
              {intl.formatMessage(m.delete)}
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="ratio-visual-editor">
      <Space wrap>
        <Input
          allowClear
          prefix={<SearchOutlined />}
          placeholder={intl.formatMessage(m.search)}
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
          style={{ width: 280 }}
          data-testid="ratio-search"
        />
        <Button onClick={() => setDialog({ kind: 'add' })} data-testid="ratio-add">
          {intl.formatMessage(m.add)}
        </Button>
        <Button type="primary" onClick={save} loading={busy} data-testid="ratio-save">
          {intl.formatMessage(m.saveChanges)}
        </Button>
      </Space>
      {dirty && <Alert type="warning" showIcon title={intl.formatMessage(m.unsaved)} />}
      <Table
        rowKey="name"
        size="small"
        columns={columns}
        dataSource={shown}
        onRow={(r) => ({ 'data-testid': `ratio-row-${r.name}` }) as HTMLAttributes<HTMLElement>}
        pagination={{
          current: page,
          pageSize: VISUAL_EDITOR_PAGE_SIZE,
          onChange: setPage,
          showSizeChanger: false,
          showTotal: (total) => intl.formatMessage(common.total, { total }),
        }}
        scroll={{ x: true }}
      />
      {dialog.kind !== 'none' && (
        <ModelPricingModal
          initial={dialog.kind === 'edit' ? dialog.row : null}
          others={dialog.kind === 'edit' ? names.filter((n) => n !== dialog.row.name) : names}
          onOk={(row) => upsert(row, dialog.kind === 'edit' ? dialog.row.name : undefined)}
          onCancel={() => setDialog({ kind: 'none' })}
        />
      )}
    </Space>
  );
}
