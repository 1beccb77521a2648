/**
 * /log: the usage log (spec 3 §2.2): summary strip, filters, a server-paged table whose rows
 * expand to their details, column settings, and (admins) the user info dialog.
 */
import { ReloadOutlined, SettingOutlined } from '@ant-design/icons';
import { Button, Card, Collapse, Space, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { useCurrentUser } from '../../app/hooks';
import { copyWithFallback } from '../../shared/clipboard';
import { isAdmin } from '../../shared/constants';
import { reportProblem } from '../../shared/problem';
import { useIsMobile } from '../../shared/useIsMobile';
import { usePaging } from '../../shared/usePaging';
import { useQuotaDisplay } from '../status/useStatus';
import { useListLogsQuery, useLogStatsQuery } from './api';
import { ColumnSettingsDialog } from './ColumnSettingsDialog';
import { logColumns } from './columns';
import { LogDetails } from './LogDetails';
import { LogFilterBar } from './LogFilterBar';
import { page as m } from './messages';
import { useLogColumns } from './prefs';
import { defaultFilters, validateFilters } from './query';
import { toRows, type LogRow } from './row';
import { SummaryStrip } from './SummaryStrip';
import type { LogFilters } from './types';
import { UserInfoDialog } from './UserInfoDialog';

export function LogsPage() {
  const intl = useIntl();
  const admin = isAdmin(useCurrentUser()?.role);
  const display = useQuotaDisplay();
  const mobile = useIsMobile();
  const { page, setPage, pageSize, pagination } = usePaging();
  const [filters, setFilters] = useState<LogFilters>(() => defaultFilters(Date.now()));
  const [visible, setVisible] = useLogColumns();
  const [columnsOpen, setColumnsOpen] = useState(false);
  const [userId, setUserId] = useState<number | null>(null);

  const list = useListLogsQuery({ admin, filters, page, pageSize });
  const stats = useLogStatsQuery({ admin, filters });
  const rows = useMemo(() => toRows(list.data?.items ?? []), [list.data]);

  const columns = useMemo(
    () =>
      logColumns(intl, display, visible, admin, {
        onCopy: (text) => void copyWithFallback(intl, text),
        onUser: setUserId,
      }),
    [intl, display, visible, admin],
  );

  const apply = (f: LogFilters) => {
    if (reportProblem(intl, validateFilters(f, admin))) return;
    setPage(1);
    setFilters(f);
  };
  const reset = () => {
    const f = defaultFilters(Date.now());
    apply(f);
    return f;
  };

  const filterBar = <LogFilterBar admin={admin} value={filters} onApply={apply} onReset={reset} />;

  return (
    <Card
      title={intl.formatMessage(m.title)}
      extra={
        <Space size={4}>
          <Button
            icon={<ReloadOutlined />}
            aria-label={intl.formatMessage(m.refresh)}
            onClick={() => {
              void list.refetch();
              void stats.refetch();
            }}
            data-testid="logs-refresh"
          />
          <Button
            icon={<SettingOutlined />}
            aria-label={intl.formatMessage(m.columnSettings)}
            onClick={() => setColumnsOpen(true)}
            data-testid="logs-columns"
          />
        </Space>
      }
    >
      <SummaryStrip stats={stats.data} loading={stats.isFetching} display={display} />
      <div style={{ marginBottom: 16 }}>
        {mobile ? (
          // On a phone the many filters fold away so the table stays in reach.
          <Collapse
            size="small"
            items={[{ key: 'filters', label: intl.formatMessage(m.filters), children: filterBar, forceRender: true }]}
            data-testid="logs-filters-toggle"
          />
        ) : (
          filterBar
        )}
      </div>
      <Table<LogRow>
        rowKey="id"
        size="small"
        scroll={{ x: 'max-content' }}
        loading={list.isFetching}
        columns={columns}
        dataSource={rows}
        locale={{ emptyText: intl.formatMessage(m.empty) }}
        expandable={{
          // A fixed expand column keeps the expanded details within the visible width while the table scrolls.
          fixed: 'left',
          expandRowByClick: true,
          expandedRowRender: (r) => <LogDetails row={r} admin={admin} />,
        }}
        pagination={pagination(list.data?.total ?? 0)}
      />
      <ColumnSettingsDialog
        open={columnsOpen}
        admin={admin}
        value={visible}
        onSave={setVisible}
        onClose={() => setColumnsOpen(false)}
      />
      <UserInfoDialog userId={userId} display={display} onClose={() => setUserId(null)} />
    </Card>
  );
}
