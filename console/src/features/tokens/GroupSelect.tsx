/** The token group selector: the groups the user may use (GET /api/user/self/groups), or a disabled selector saying there are none. */
import { Select, Space, Tag } from 'antd';
import { useIntl } from 'react-intl';
import { groupRatioColor } from '../../shared/quota';
import { useGetSelfGroupsQuery } from './api';
import { form as m } from './messages';

export function GroupSelect({ value, onChange }: { value?: string; onChange?: (v: string) => void }) {
  const intl = useIntl();
  const { data: groups = {}, isLoading } = useGetSelfGroupsQuery();
  const names = Object.keys(groups);
  if (!isLoading && names.length === 0) {
    return <Select disabled placeholder={intl.formatMessage(m.noGroups)} data-testid="token-group" />;
  }
  return (
    <Select
      allowClear
      loading={isLoading}
      value={value || undefined}
      onChange={(v?: string) => onChange?.(v ?? '')}
      placeholder={intl.formatMessage(m.groupPlaceholder)}
      data-testid="token-group"
      options={names.map((name) => ({
        value: name,
        label: (
          <Space size={4}>
            <span>{name}</span>
            {groups[name].desc !== name && <span style={{ opacity: 0.65 }}>{groups[name].desc}</span>}
            <Tag color={groupRatioColor(groups[name].ratio)}>
              {intl.formatMessage(m.groupRatio, { ratio: groups[name].ratio })}
            </Tag>
          </Space>
        ),
      }))}
    />
  );
}
