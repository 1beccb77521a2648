/**
 * /playground (spec 3 §2.6): a side panel with the call's parameters and a chat area that asks
 * the model through the gateway (POST /pg/chat/completions, billed to the user's balance),
 * streams the answer as sanitized markdown, can stop it, and shows each answer's token usage.
 * The parameters and the conversation are kept in the browser. On a phone the panel is a drawer.
 */
import { ClearOutlined, SettingOutlined } from '@ant-design/icons';
import { Button, Card, Drawer, Flex, Space, Tag } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { useIsMobile } from '../../shared/useIsMobile';
import { Composer, MessageList } from './Conversation';
import { page as m } from './messages';
import { ParamsPanel } from './ParamsPanel';
import { useGroupChoice } from './useGroupChoice';
import { usePlayground } from './usePlayground';

export function PlaygroundPage() {
  const intl = useIntl();
  const mobile = useIsMobile();
  const pg = usePlayground();
  const groups = useGroupChoice(pg.params.group);
  const [paramsOpen, setParamsOpen] = useState(false);

  const panel = <ParamsPanel value={pg.params} groups={groups} onChange={pg.setParams} onReset={pg.resetParams} />;
  const clear = () => {
    pg.clear();
    toast.success(intl.formatMessage(m.cleared));
  };

  return (
    <Flex
      gap={16}
      style={{ height: mobile ? 'calc(100vh - 150px)' : 'calc(100vh - 160px)', minHeight: mobile ? 420 : 480 }}
      data-testid="playground"
    >
      {!mobile && (
        <Card
          size="small"
          title={intl.formatMessage(m.params)}
          style={{ width: 300, flexShrink: 0, display: 'flex', flexDirection: 'column' }}
          styles={{ body: { flex: 1, minHeight: 0, overflowY: 'auto' } }}
        >
          {panel}
        </Card>
      )}
      <Card
        size="small"
        title={
          <Space size={8} style={{ minWidth: 0 }}>
            <span>{intl.formatMessage(m.title)}</span>
            <Tag
              style={{ maxWidth: mobile ? 140 : 320, overflow: 'hidden', textOverflow: 'ellipsis' }}
              data-testid="pg-current-model"
            >
              {pg.params.model}
            </Tag>
          </Space>
        }
        extra={
          <Space size={4}>
            {mobile && (
              <Button
                icon={<SettingOutlined />}
                aria-label={intl.formatMessage(m.params)}
                onClick={() => setParamsOpen(true)}
                data-testid="pg-params-open"
              />
            )}
            <Button
              icon={<ClearOutlined />}
              aria-label={intl.formatMessage(m.clear)}
              disabled={pg.messages.length === 0}
              onClick={clear}
              data-testid="pg-clear"
            >
              {mobile ? null : intl.formatMessage(m.clear)}
            </Button>
          </Space>
        }
        style={{ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' }}
        styles={{ body: { flex: 1, minHeight: 0, display: 'flex', flexDirection: 'column', padding: mobile ? 8 : 16 } }}
      >
        <MessageList messages={pg.messages} />
        <Composer
          generating={pg.generating}
          disabled={groups.loading && groups.group === ''}
          onSend={(text) => pg.send(text, groups.group)}
          onStop={pg.stop}
        />
      </Card>
      {mobile && (
        <Drawer
          title={intl.formatMessage(m.params)}
          placement="right"
          size={320}
          open={paramsOpen}
          onClose={() => setParamsOpen(false)}
        >
          {panel}
        </Drawer>
      )}
    </Flex>
  );
}
