import { PlusOutlined } from '@ant-design/icons';
import { Button, Card, Flex, Input, Select, Table } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { useNavigate, useParams, useLocation } from 'react-router';
import type { User } from '../../api/types';
import type { UserAction } from '../../shared/constants';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { usePaging } from '../../shared/usePaging';
import { useQuotaDisplay } from '../status/useStatus';
import { AddUserDrawer } from './AddUserDrawer';
import { useGetGroupsQuery, useListUsersQuery, useManageUserMutation } from './api';
import { userColumns } from './columns';
import { EditUserDrawer } from './EditUserDrawer';
import { users as m } from './messages';
import { succeeded } from '../../shared/succeeded';

/** /user, /user/edit (add panel) and /user/edit/{id} (edit panel). */
export function UsersPage() {
  const intl = useIntl();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const { id } = useParams();
  const display = useQuotaDisplay();
  const { page, setPage, pageSize, pagination } = usePaging();
  const [draft, setDraft] = useState({ keyword: '', group: '' });
  const [filter, setFilter] = useState(draft);
  const { data, isFetching } = useListUsersQuery({ ...filter, p: page, pageSize });
  const { data: groups = [] } = useGetGroupsQuery();
  const [manage] = useManageUserMutation();

  const columns = useMemo(() => {
    const onAction = async (u: User, action: UserAction) => {
      const ok = await succeeded(manage({ id: u.id, action }));
      if (ok) toast.success(intl.formatMessage(common.operationDone));
    };
    return userColumns(intl, display, onAction, (u) => navigate(`/user/edit/${u.id}`));
  }, [intl, display, manage, navigate]);

  const search = () => {
    setPage(1);
    setFilter(draft);
  };

  return (
    <Card title={intl.formatMessage(m.title)}>
      <Flex gap={8} wrap style={{ marginBottom: 16 }}>
        <Input.Search
          allowClear
          style={{ maxWidth: 360 }}
          placeholder={intl.formatMessage(m.keyword)}
          value={draft.keyword}
          onChange={(e) => setDraft({ ...draft, keyword: e.target.value })}
          onSearch={search}
          data-testid="users-keyword"
        />
        <Select
          allowClear
          style={{ minWidth: 160 }}
          placeholder={intl.formatMessage(m.group)}
          value={draft.group || undefined}
          onChange={(g) => setDraft({ ...draft, group: g ?? '' })}
          options={groups.map((g) => ({ value: g, label: g }))}
          data-testid="users-group"
        />
        <Button onClick={search} data-testid="users-search">
          {intl.formatMessage(common.search)}
        </Button>
        <Button
          type="primary"
          icon={<PlusOutlined />}
          onClick={() => navigate('/user/edit')}
          style={{ marginInlineStart: 'auto' }}
          data-testid="users-add"
        >
          {intl.formatMessage(m.add)}
        </Button>
      </Flex>
      <Table<User>
        rowKey="id"
        size="middle"
        scroll={{ x: 900 }}
        loading={isFetching}
        columns={columns}
        dataSource={data?.items ?? []}
        pagination={pagination(data?.total ?? 0)}
      />
      <AddUserDrawer open={pathname === '/user/edit'} onClose={() => navigate('/user')} />
      <EditUserDrawer id={id ? Number(id) : undefined} onClose={() => navigate('/user')} />
    </Card>
  );
}
