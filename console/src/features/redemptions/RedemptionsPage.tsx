/** /redemption: redemption codes for administrators (spec 2 §2.6): search, table, create/edit drawer, batch disable, delete invalid, delete by name. */
import { DeleteOutlined, PlusOutlined, StopOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Input, Popconfirm, Table } from 'antd';
import { useMemo, useState, type HTMLAttributes } from 'react';
import { useIntl } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { succeeded } from '../../shared/succeeded';
import { usePaging } from '../../shared/usePaging';
import { useQuotaDisplay } from '../status/useStatus';
import {
  useBatchDisableRedemptionsMutation,
  useDeleteDisabledRedemptionsMutation,
  useDeleteRedemptionMutation,
  useListRedemptionsQuery,
  useSetRedemptionStatusMutation,
} from './api';
import { redemptionColumns } from './columns';
import { CreatedCodesModal } from './CreatedCodesModal';
import { DeleteByNameModal } from './DeleteByNameModal';
import { redemptions as m } from './messages';
import { RedemptionDrawer } from './RedemptionDrawer';
import { isGreyed, toggledStatus, validateSelection } from './rules';
import type { Redemption } from './types';

type DrawerState = { open: false } | { open: true; code: Redemption | undefined };

const GREYED_ROW = { opacity: 0.45 };

export function RedemptionsPage() {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const { page, setPage, pageSize, pagination } = usePaging();
  const [draft, setDraft] = useState('');
  const [keyword, setKeyword] = useState('');
  const [selected, setSelected] = useState<number[]>([]);
  const [drawer, setDrawer] = useState<DrawerState>({ open: false });
  const [createdCodes, setCreatedCodes] = useState<{ codes: string[]; name: string }>({ codes: [], name: '' });
  const [byNameOpen, setByNameOpen] = useState(false);
  const { data, isFetching } = useListRedemptionsQuery({ keyword, p: page, pageSize });
  const [setStatus] = useSetRedemptionStatusMutation();
  const [remove] = useDeleteRedemptionMutation();
  const [batchDisable, { isLoading: disabling }] = useBatchDisableRedemptionsMutation();
  const [deleteDisabled, { isLoading: deletingDisabled }] = useDeleteDisabledRedemptionsMutation();

  const columns = useMemo(
    () =>
      redemptionColumns(intl, display, {
        onCopy: (r) => void copyWithFallback(intl, r.key),
        onToggle: async (r) => {
          if (await succeeded(setStatus({ id: r.id, status: toggledStatus(r.status) }))) {
            toast.success(intl.formatMessage(common.operationDone));
          }
        },
        onEdit: (r) => setDrawer({ open: true, code: r }),
        onDelete: async (r) => {
          if (await succeeded(remove(r.id))) {
            toast.success(intl.formatMessage(m.deleted));
            setSelected((s) => s.filter((id) => id !== r.id));
          }
        },
      }),
    [intl, display, setStatus, remove],
  );

  const search = () => {
    setPage(1);
    setKeyword(draft.trim());
  };
  const onBatchDisable = async () => {
    if (reportProblem(intl, validateSelection(selected))) return;
    const n = await batchDisable(selected)
      .unwrap()
      .catch(() => undefined);
    if (n === undefined) return;
    toast.success(intl.formatMessage(m.batchDisabled, { count: n }));
    setSelected([]);
  };
  const onDeleteDisabled = async () => {
    const n = await deleteDisabled()
      .unwrap()
      .catch(() => undefined);
    if (n !== undefined) toast.success(intl.formatMessage(m.deletedCount, { count: n }));
  };

  return (
    <Card title={intl.formatMessage(m.title)}>
      <Flex gap={8} wrap style={{ marginBottom: 16 }}>
        <Input.Search
          allowClear
          style={{ maxWidth: 320 }}
          placeholder={intl.formatMessage(m.keyword)}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onSearch={search}
          data-testid="redemptions-keyword"
        />
        <Button icon={<StopOutlined />} onClick={onBatchDisable} loading={disabling} data-testid="redemptions-batch-disable">
          {intl.formatMessage(m.batchDisable)}
        </Button>
        <Popconfirm
          title={intl.formatMessage(m.deleteDisabledConfirm)}
          onConfirm={onDeleteDisabled}
          okButtonProps={{ danger: true }}
        >
          <Button danger icon={<DeleteOutlined />} loading={deletingDisabled} data-testid="redemptions-delete-disabled">
            {intl.formatMessage(m.deleteDisabled)}
          </Button>
        </Popconfirm>
        <Button danger onClick={() => setByNameOpen(true)} data-testid="redemptions-delete-by-name">
          {intl.formatMessage(m.deleteByName)}
        </Button>
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => setDrawer({ open: true, code: undefined })}
          style={{ marginInlineStart: 'auto' }}
          data-testid="redemptions-add"
        >
          {intl.formatMessage(m.add)}
        </Button>
      </Flex>
      <Table<Redemption>
        rowKey="id"
        size="middle"
        scroll={{ x: 1300 }}
        loading={isFetching}
        columns={columns}
        dataSource={data?.items ?? []}
        onRow={(r) => (isGreyed(r) ? { style: GREYED_ROW, 'data-greyed': 'true' } : {}) as HTMLAttributes<HTMLElement>}
        rowSelection={{
          selectedRowKeys: selected,
          onChange: (keys) => setSelected(keys.map(Number)),
          preserveSelectedRowKeys: true,
        }}
        pagination={pagination(data?.total ?? 0)}
      />
      <RedemptionDrawer
        open={drawer.open}
        code={drawer.open ? drawer.code : undefined}
        onClose={() => setDrawer({ open: false })}
        onCreated={(codes, name) => setCreatedCodes({ codes, name })}
      />
      <CreatedCodesModal
        codes={createdCodes.codes}
        name={createdCodes.name}
        onClose={() => setCreatedCodes({ codes: [], name: '' })}
      />
      <DeleteByNameModal open={byNameOpen} onClose={() => setByNameOpen(false)} />
    </Card>
  );
}
