/** /chat/:id: the chat link of entry `id` (default the first), framed, with the user's token filled in (spec 3 §2.7). */
import { ExportOutlined } from '@ant-design/icons';
import { Button, Flex, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { useParams } from 'react-router';
import { ChatStatus } from './ChatStatus';
import { chat as m } from './messages';
import { chatIndex } from './rules';
import { useChatTarget } from './useChatTarget';

/**
 * What the framed (external) page may do: run its scripts with its own origin (storage for
 * its settings), submit forms, open links in tabs of their own, and use the clipboard and
 * microphone. It may not navigate this console (no allow-top-navigation).
 */
export const CHAT_FRAME_SANDBOX =
  'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads allow-modals';
export const CHAT_FRAME_ALLOW = 'clipboard-read; clipboard-write; microphone; fullscreen';

export function ChatPage() {
  const intl = useIntl();
  const { id } = useParams();
  const target = useChatTarget(chatIndex(id));
  if (target.state !== 'ready') return <ChatStatus target={target} />;
  return (
    <Flex vertical gap={8} style={{ height: 'calc(100dvh - 160px)', minHeight: 420 }}>
      <Flex justify="space-between" align="center" gap={8}>
        <Typography.Text strong ellipsis>
          {target.name}
        </Typography.Text>
        <Button
          size="small"
          icon={<ExportOutlined />}
          href={target.url}
          target="_blank"
          rel="noopener noreferrer"
          data-testid="chat-open-tab"
        >
          {intl.formatMessage(m.openNewTab)}
        </Button>
      </Flex>
      <iframe
        key={target.url}
        src={target.url}
        title={intl.formatMessage(m.frameTitle, { name: target.name })}
        sandbox={CHAT_FRAME_SANDBOX}
        allow={CHAT_FRAME_ALLOW}
        referrerPolicy="no-referrer"
        style={{ flex: 1, width: '100%', border: 'none', borderRadius: 8, background: 'transparent' }}
        data-testid="chat-frame"
      />
    </Flex>
  );
}
