/**
 * /midjourney: the drawing log (spec 3 §2.3). Filters (channel for admins, task id, status,
 * start and end in the last 30 days up to an hour ahead by default), a table paged on the client
 * and read from the server page by page, and for admins a notice while drawing callbacks are off.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Alert, Button, Card, Empty, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { Link } from 'react-router';
import { useCurrentUser } from '../../app/hooks';
import { isAdmin } from '../../shared/constants';
import { reportProblem } from '../../shared/problem';
import { readBool, STORAGE_KEY } from '../../shared/storage';
import { usePaging } from '../../shared/usePaging';
import { useStatus } from '../status/useStatus';
import { useListDrawingsInfiniteQuery } from './api';
import { drawingColumns } from './drawingColumns';
import { JobFilterBar } from './JobFilterBar';
import { page as m } from './messages';
import { defaultDrawingFilters, validateJobFilters } from './query';
import type { DrawingJob, JobFilters } from './types';
import { useCachedPages } from './useCachedPages';

export function DrawingLogPage() {
  const intl = useIntl();
  const admin = isAdmin(useCurrentUser()?.role);
  const { status } = useStatus();
  const notifyOn = status.mj_notify_enabled ?? readBool(STORAGE_KEY.mjNotifyEnabled);
  const { page, setPage, pageSize, pagination } = usePaging();
  const [filters, setFilters] = useState<JobFilters>(() => defaultDrawingFilters(Date.now()));
  const result = useListDrawingsInfiniteQuery({ admin, filters });
  const { rows, total } = useCachedPages(result, page, pageSize);
  const columns = useMemo(() => drawingColumns(intl, admin), [intl, admin]);

  const apply = (f: JobFilters) => {
    if (reportProblem(intl, validateJobFilters(f, admin))) return;
    setPage(1);
    setFilters(f);
  };
  const reset = () => {
    const f = defaultDrawingFilters(Date.now());
    apply(f);
    return f;
  };

  return (
    <Card
      title={intl.formatMessage(m.drawingTitle)}
      extra={
        <Button
          icon={<ReloadOutlined />}
          aria-label={intl.formatMessage(m.refresh)}
          onClick={() => void result.refetch()}
          data-testid="drawing-refresh"
        />
      }
      data-testid="drawing-page"
    >
      {admin && !notifyOn && (
        <Alert
          type="warning"
          showIcon
          style={{ marginBottom: 16 }}
          title={intl.formatMessage(m.callbackOff)}
          action={<Link to="/setting?tab=operation">{intl.formatMessage(m.openSettings)}</Link>}
          data-testid="drawing-callback-notice"
        />
      )}
      <JobFilterBar admin={admin} value={filters} onApply={apply} onReset={reset} kind="drawing" />
      <Table<DrawingJob>
        rowKey="id"
        size="small"
        scroll={{ x: 'max-content' }}
        loading={result.isFetching}
        columns={columns}
        dataSource={rows}
        locale={{
          emptyText: (
            <Empty
              image={Empty.PRESENTED_IMAGE_SIMPLE}
              description={intl.formatMessage(m.drawingEmpty)}
              data-testid="drawing-empty"
            />
          ),
        }}
        pagination={pagination(total)}
        data-testid="drawing-table"
      />
    </Card>
  );
}
