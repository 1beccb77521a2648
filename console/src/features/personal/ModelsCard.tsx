import { Button, Card, Empty, Flex, Tag } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { copyWithFallback } from '../../shared/clipboard';
import { useGetUserModelsQuery } from './api';
import { models as m } from './messages';
import { visibleModels } from './modelTags';

export function ModelsCard() {
  const intl = useIntl();
  const { data = [], isLoading } = useGetUserModelsQuery();
  const [expanded, setExpanded] = useState(false);
  const { shown, hidden } = visibleModels(data, expanded);
  return (
    <Card title={intl.formatMessage(m.title)} loading={isLoading} data-testid="models-card">
      {data.length === 0 ? (
        <Empty description={intl.formatMessage(m.none)} image={Empty.PRESENTED_IMAGE_SIMPLE} />
      ) : (
        <Flex wrap gap={6}>
          {shown.map((name) => (
            <Tag key={name} style={{ cursor: 'pointer' }} onClick={() => copyWithFallback(intl, name)}>
              {name}
            </Tag>
          ))}
          {hidden > 0 && (
            <Button size="small" type="link" onClick={() => setExpanded(true)}>
              {intl.formatMessage(m.showAll, { count: data.length })}
            </Button>
          )}
          {expanded && (
            <Button size="small" type="link" onClick={() => setExpanded(false)}>
              {intl.formatMessage(m.collapse)}
            </Button>
          )}
        </Flex>
      )}
    </Card>
  );
}
