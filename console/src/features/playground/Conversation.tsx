/** The chat area: the messages (kept scrolled to the newest while the reader is at the bottom) and the composer. */
import { SendOutlined, StopOutlined } from '@ant-design/icons';
import { Button, Empty, Flex, Input, theme } from 'antd';
import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { useIntl } from 'react-intl';
import { chat as m, page } from './messages';
import { MessageView } from './MessageView';
import type { ChatMessage } from './types';
import './playground.css';

/** How close to the bottom (px) still counts as reading the newest message. */
const STICK_PX = 48;

export function MessageList({ messages }: { messages: ChatMessage[] }) {
  const intl = useIntl();
  const { token } = theme.useToken();
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  useEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [messages]);
  const vars = { '--pg-code-bg': token.colorFillTertiary, '--pg-code-border': token.colorBorderSecondary } as CSSProperties;
  return (
    <div
      ref={box}
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
      }}
      style={{ ...vars, flex: 1, minHeight: 0, overflowY: 'auto', padding: '4px 2px 12px' }}
      data-testid="pg-messages"
    >
      {messages.length === 0 ? (
        <Empty
          style={{ marginTop: 48 }}
          description={
            <>
              <div>{intl.formatMessage(page.emptyTitle)}</div>
              <div style={{ fontSize: 12, opacity: 0.75 }}>{intl.formatMessage(page.emptyHint)}</div>
            </>
          }
          data-testid="pg-empty"
        />
      ) : (
        <Flex vertical gap={16}>
          {messages.map((msg, i) => (
            <MessageView key={msg.id} message={msg} index={i} />
          ))}
        </Flex>
      )}
    </div>
  );
}

interface ComposerProps {
  generating: boolean;
  disabled?: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
}

/** The question box: Enter sends (not while an input method is composing), Shift+Enter breaks the line. */
export function Composer({ generating, disabled, onSend, onStop }: ComposerProps) {
  const intl = useIntl();
  const [text, setText] = useState('');
  const canSend = !generating && !disabled && text.trim() !== '';
  const send = () => {
    if (!canSend) return;
    onSend(text);
    setText('');
  };
  return (
    <Flex gap={8} align="end" style={{ paddingTop: 12 }}>
      <Input.TextArea
        autoSize={{ minRows: 1, maxRows: 6 }}
        value={text}
        placeholder={intl.formatMessage(m.placeholder)}
        aria-label={intl.formatMessage(m.input)}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            send();
          }
        }}
        data-testid="pg-input"
      />
      {generating ? (
        <Button danger icon={<StopOutlined />} onClick={onStop} data-testid="pg-stop">
          {intl.formatMessage(m.stop)}
        </Button>
      ) : (
        <Button type="primary" icon={<SendOutlined />} disabled={!canSend} onClick={send} data-testid="pg-send">
          {intl.formatMessage(m.send)}
        </Button>
      )}
    </Flex>
  );
}
