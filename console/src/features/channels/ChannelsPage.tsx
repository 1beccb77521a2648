/** /channel, /channel/add, /channel/edit/:id: channel management (spec 2 §2.4): search, table, drawer, dialogs, bulk actions. */
import { PlusOutlined, ReloadOutlined, SettingOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Space, Switch, Table, Typography } from 'antd';
import { useMemo, useState, type Key } from 'react';
import { useIntl } from 'react-intl';
import { useLocation, useNavigate, useParams } from 'react-router';
import { usePaging } from '../../shared/usePaging';
import { useQuotaDisplay } from '../status/useStatus';
import { isSearch, useListChannelsQuery } from './api';
import { BatchTagDialog } from './BatchTagDialog';
import { BulkActions } from './BulkActions';
import { ChannelDrawer } from './ChannelDrawer';
import { channelColumns } from './columns';
import { ColumnSettingsDialog } from './ColumnSettingsDialog';
import { KeysDialog } from './KeysDialog';
import { page as m } from './messages';
import { ModelTestDialog } from './ModelTestDialog';
import { useColumnVisibility, useIdSort, useTagMode } from './prefs';
import { EMPTY_FILTER, SearchBar, type ChannelFilter } from './SearchBar';
import { TagEditDialog } from './TagEditDialog';
import { rowChannels, tableRows, type TableRow, type TagRow } from './tagRows';
import type { Channel } from './types';
import { useRowHandlers } from './useRowHandlers';

const CHANNEL_KEY_PREFIX = 'channel-';
const TABLE_SCROLL_X = 1500;

export function ChannelsPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { id } = useParams();
  const display = useQuotaDisplay();
  const { page, setPage, pageSize, pagination } = usePaging();
  const [idSort, setIdSort] = useIdSort();
  const [tagMode, setTagMode] = useTagMode();
  const [visible, setVisible] = useColumnVisibility();
  const [filter, setFilter] = useState<ChannelFilter>(EMPTY_FILTER);
  const [selectedKeys, setSelectedKeys] = useState<Key[]>([]);
  const [columnsOpen, setColumnsOpen] = useState(false);
  const [batchTagOpen, setBatchTagOpen] = useState(false);
  const [testing, setTesting] = useState<Channel | null>(null);
  /** The multi-key channel whose Keys dialog is open. */
  const [keysOf, setKeysOf] = useState<Channel | null>(null);
  const [tagRow, setTagRow] = useState<TagRow | null>(null);

  const searching = isSearch(filter);
  const { data, isFetching, refetch } = useListChannelsQuery({ ...filter, p: page, pageSize, idSort, tagMode });
  const rows = useMemo(() => tableRows(data?.items ?? [], tagMode), [data, tagMode]);
  const shownIds = useMemo(() => new Set(rowChannels(rows).map((c) => c.id)), [rows]);
  const selectedIds = selectedKeys
    .map(String)
    .filter((k) => k.startsWith(CHANNEL_KEY_PREFIX))
    .map((k) => Number(k.slice(CHANNEL_KEY_PREFIX.length)))
    .filter((n) => shownIds.has(n));

  const handlers = useRowHandlers({ openModelTest: setTesting, openKeys: setKeysOf, openTagEdit: setTagRow });
  const columns = channelColumns(intl, display, visible, handlers);

  const drawerMode = pathname === '/channel/add' ? 'add' : id !== undefined ? 'edit' : null;

  return (
    <Card
      title={intl.formatMessage(m.title)}
      extra={
        <Button type="primary" icon={<PlusOutlined />} onClick={() => navigate('/channel/add')} data-testid="channels-add">
          {intl.formatMessage(m.add)}
        </Button>
      }
    >
      <Flex vertical gap={12} style={{ marginBottom: 16 }}>
        <Flex gap={8} wrap justify="space-between">
          <SearchBar
            onSearch={(f) => {
              setPage(1);
              setFilter(f);
            }}
          />
          <Space wrap>
            <Space size={4}>
              <Switch
                size="small"
                checked={idSort}
                onChange={(v) => {
                  setIdSort(v);
                  setPage(1);
                }}
                data-testid="channels-id-sort"
              />
              <Typography.Text>{intl.formatMessage(m.idSort)}</Typography.Text>
            </Space>
            <Space size={4}>
              <Switch
                size="small"
                checked={tagMode}
                onChange={(v) => {
                  setTagMode(v);
                  setPage(1);
                }}
                data-testid="channels-tag-mode"
              />
              <Typography.Text>{intl.formatMessage(m.tagMode)}</Typography.Text>
            </Space>
            <Button icon={<SettingOutlined />} onClick={() => setColumnsOpen(true)} data-testid="channels-columns">
              {intl.formatMessage(m.columnSettings)}
            </Button>
            <Button icon={<ReloadOutlined />} onClick={() => refetch()} aria-label={intl.formatMessage(m.refresh)} />
          </Space>
        </Flex>
        <BulkActions
          selected={selectedIds}
          onSelectionDone={() => setSelectedKeys([])}
          onBatchTag={() => setBatchTagOpen(true)}
        />
      </Flex>
      <Table<TableRow>
        rowKey="key"
        size="middle"
        scroll={{ x: TABLE_SCROLL_X }}
        loading={isFetching}
        columns={columns}
        dataSource={rows}
        rowSelection={{ selectedRowKeys: selectedKeys, onChange: setSelectedKeys, checkStrictly: false }}
        data-testid="channels-table"
        // A search answers every match at once: the table pages it locally.
        pagination={pagination(searching ? rows.length : (data?.total ?? 0))}
      />
      <ChannelDrawer mode={drawerMode} id={id ? Number(id) : undefined} onClose={() => navigate('/channel')} />
      <ColumnSettingsDialog open={columnsOpen} value={visible} onSave={setVisible} onClose={() => setColumnsOpen(false)} />
      <BatchTagDialog
        open={batchTagOpen}
        ids={selectedIds}
        onDone={() => setSelectedKeys([])}
        onClose={() => setBatchTagOpen(false)}
      />
      <ModelTestDialog channel={testing} onClose={() => setTesting(null)} />
      <KeysDialog channel={keysOf} onClose={() => setKeysOf(null)} />
      <TagEditDialog row={tagRow} onClose={() => setTagRow(null)} />
    </Card>
  );
}
