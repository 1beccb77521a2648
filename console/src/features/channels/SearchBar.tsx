/** Channel search: keyword, model and group filters, applied on Enter or the search button. */
import { Button, Flex, Input, Select } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { common } from '../../shared/messages';
import { useGetGroupsQuery } from '../users/api';
import { page as m } from './messages';

export interface ChannelFilter {
  keyword: string;
  model: string;
  group: string;
}

export const EMPTY_FILTER: ChannelFilter = { keyword: '', model: '', group: '' };

export function SearchBar({ onSearch }: { onSearch: (f: ChannelFilter) => void }) {
  const intl = useIntl();
  const [draft, setDraft] = useState<ChannelFilter>(EMPTY_FILTER);
  const { data: groups = [] } = useGetGroupsQuery();
  return (
    <Flex gap={8} wrap>
      <Input
        allowClear
        style={{ width: 220 }}
        placeholder={intl.formatMessage(m.keyword)}
        value={draft.keyword}
        onChange={(e) => setDraft({ ...draft, keyword: e.target.value })}
        onPressEnter={() => onSearch(draft)}
        data-testid="channels-keyword"
      />
      <Input
        allowClear
        style={{ width: 150 }}
        placeholder={intl.formatMessage(m.model)}
        value={draft.model}
        onChange={(e) => setDraft({ ...draft, model: e.target.value })}
        onPressEnter={() => onSearch(draft)}
        data-testid="channels-model"
      />
      <Select
        allowClear
        style={{ width: 130 }}
        placeholder={intl.formatMessage(m.group)}
        value={draft.group || undefined}
        onChange={(g) => setDraft({ ...draft, group: g ?? '' })}
        options={groups.map((g) => ({ value: g, label: g }))}
        data-testid="channels-group"
      />
      <Button type="primary" ghost onClick={() => onSearch(draft)} data-testid="channels-search">
        {intl.formatMessage(common.search)}
      </Button>
      <Button
        onClick={() => {
          setDraft(EMPTY_FILTER);
          onSearch(EMPTY_FILTER);
        }}
      >
        {intl.formatMessage(m.reset)}
      </Button>
    </Flex>
  );
}
