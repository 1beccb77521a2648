/** /token: the user's API tokens (spec 2 §2.5): warning, search, table, copy selected, enable/disable, delete, create/edit drawer. */
import { CopyOutlined, PlusOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Flex, Input, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { succeeded } from '../../shared/succeeded';
import { usePaging } from '../../shared/usePaging';
import { useQuotaDisplay } from '../status/useStatus';
import { useDeleteTokenMutation, useListTokensQuery, useSetTokenStatusMutation, useTokenKeys } from './api';
import { tokenColumns } from './columns';
import { tokens as m } from './messages';
import { copySelectedText, toggledStatus, validateSelection } from './rules';
import { TokenDrawer } from './TokenDrawer';
import type { Token } from './types';

type DrawerState = { open: false } | { open: true; token: Token | undefined };

export function TokensPage() {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const { page, setPage, pageSize, pagination } = usePaging();
  const [draft, setDraft] = useState('');
  const [keyword, setKeyword] = useState('');
  const [selected, setSelected] = useState<Token[]>([]);
  const [drawer, setDrawer] = useState<DrawerState>({ open: false });
  const { data, isFetching } = useListTokensQuery({ keyword, p: page, pageSize });
  const [setStatus] = useSetTokenStatusMutation();
  const [remove] = useDeleteTokenMutation();
  const readKeys = useTokenKeys();
  const [copying, setCopying] = useState(false);

  const columns = useMemo(
    () =>
      tokenColumns(intl, display, {
        onToggle: async (t) => {
          if (await succeeded(setStatus({ id: t.id, status: toggledStatus(t.status) }))) {
            toast.success(intl.formatMessage(common.operationDone));
          }
        },
        onEdit: (t) => setDrawer({ open: true, token: t }),
        onDelete: async (t) => {
          if (await succeeded(remove(t.id))) {
            toast.success(intl.formatMessage(m.deleted));
            setSelected((s) => s.filter((x) => x.id !== t.id));
          }
        },
      }),
    [intl, display, setStatus, remove],
  );

  /** The list holds masked keys: the selected tokens' whole keys are read first. */
  const copySelected = async () => {
    if (reportProblem(intl, validateSelection(selected))) return;
    setCopying(true);
    const keys = await readKeys(selected.map((t) => t.id)).finally(() => setCopying(false));
    if (!keys) return;
    await copyWithFallback(intl, copySelectedText(selected.map((t, i) => ({ name: t.name, key: keys[i] }))));
  };

  const search = () => {
    setPage(1);
    setKeyword(draft.trim());
  };

  return (
    <Card title={intl.formatMessage(m.title)}>
      <Alert
        type="warning"
        showIcon
        title={intl.formatMessage(m.warning)}
        style={{ marginBottom: 16 }}
        data-testid="tokens-warning"
      />
      <Flex gap={8} wrap style={{ marginBottom: 16 }}>
        <Input.Search
          allowClear
          style={{ maxWidth: 320 }}
          placeholder={intl.formatMessage(m.keyword)}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onSearch={search}
          data-testid="tokens-keyword"
        />
        <Button icon={<CopyOutlined />} loading={copying} onClick={() => void copySelected()} data-testid="tokens-copy-selected">
          {intl.formatMessage(m.copySelected)}
        </Button>
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => setDrawer({ open: true, token: undefined })}
          style={{ marginInlineStart: 'auto' }}
          data-testid="tokens-add"
        >
          {intl.formatMessage(m.add)}
        </Button>
      </Flex>
      <Table<Token>
        rowKey="id"
        size="middle"
        scroll={{ x: 1300 }}
        loading={isFetching}
        columns={columns}
        dataSource={data?.items ?? []}
        rowSelection={{
          selectedRowKeys: selected.map((t) => t.id),
          onChange: (_keys, rows) => setSelected(rows),
          preserveSelectedRowKeys: true,
        }}
        pagination={pagination(data?.total ?? 0)}
      />
      <TokenDrawer open={drawer.open} token={drawer.open ? drawer.token : undefined} onClose={() => setDrawer({ open: false })} />
    </Card>
  );
}
