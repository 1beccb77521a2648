/**
 * /task: the task log (spec 3 §2.4). Filters (channel for admins, task id, status, platform,
 * start from the start of today and end an hour ahead by default), a table paged on the client
 * and read from the server page by page; a task id opens the whole record.
 */
import { ReloadOutlined } from '@ant-design/icons';
import { Button, Card, Empty, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { useCurrentUser } from '../../app/hooks';
import { isAdmin } from '../../shared/constants';
import { reportProblem } from '../../shared/problem';
import { usePaging } from '../../shared/usePaging';
import { useListTasksInfiniteQuery } from './api';
import { JobFilterBar } from './JobFilterBar';
import { page as m } from './messages';
import { defaultTaskFilters, validateJobFilters } from './query';
import { taskColumns } from './taskColumns';
import { TaskRecordDialog } from './TaskRecordDialog';
import type { JobFilters, TaskJob } from './types';
import { useCachedPages } from './useCachedPages';

export function TaskLogPage() {
  const intl = useIntl();
  const admin = isAdmin(useCurrentUser()?.role);
  const { page, setPage, pageSize, pagination } = usePaging();
  const [filters, setFilters] = useState<JobFilters>(() => defaultTaskFilters(Date.now()));
  const [opened, setOpened] = useState<TaskJob | null>(null);
  const result = useListTasksInfiniteQuery({ admin, filters });
  const { rows, total } = useCachedPages(result, page, pageSize);
  const columns = useMemo(() => taskColumns(intl, admin, setOpened), [intl, admin]);

  const apply = (f: JobFilters) => {
    if (reportProblem(intl, validateJobFilters(f, admin))) return;
    setPage(1);
    setFilters(f);
  };
  const reset = () => {
    const f = defaultTaskFilters(Date.now());
    apply(f);
    return f;
  };

  return (
    <Card
      title={intl.formatMessage(m.taskTitle)}
      extra={
        <Button
          icon={<ReloadOutlined />}
          aria-label={intl.formatMessage(m.refresh)}
          onClick={() => void result.refetch()}
          data-testid="task-refresh"
        />
      }
      data-testid="task-page"
    >
      <JobFilterBar admin={admin} value={filters} onApply={apply} onReset={reset} kind="task" />
      <Table<TaskJob>
        rowKey="id"
        size="small"
        scroll={{ x: 'max-content' }}
        loading={result.isFetching}
        columns={columns}
        dataSource={rows}
        locale={{
          emptyText: (
            <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={intl.formatMessage(m.taskEmpty)} data-testid="task-empty" />
          ),
        }}
        pagination={pagination(total)}
        data-testid="task-table"
      />
      <TaskRecordDialog task={opened} admin={admin} onClose={() => setOpened(null)} />
    </Card>
  );
}
