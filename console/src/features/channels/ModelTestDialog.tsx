/** Model test dialog: tests one channel with a chosen model and shows each result with its time. */
import { Button, Input, Modal, Table, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { isApiError } from '../../shared/apiError';
import { useTestChannelMutation } from './api';
import { actions as am, testDialog as m } from './messages';
import { commaList } from './rules';
import type { Channel } from './types';

/** The result of one test as the dialogs show it (also the Keys dialog). */
export type Outcome = { state: 'testing' } | { state: 'ok'; seconds: number } | { state: 'failed'; message: string };

const SECONDS_DIGITS = 2;

export function ResultCell({ outcome }: { outcome: Outcome | undefined }) {
  const intl = useIntl();
  if (!outcome) return <Tag>{intl.formatMessage(m.notTested)}</Tag>;
  if (outcome.state === 'testing') return <Tag color="processing">{intl.formatMessage(m.testing)}</Tag>;
  if (outcome.state === 'ok') {
    return <Tag color="green">{intl.formatMessage(m.ok, { seconds: outcome.seconds.toFixed(SECONDS_DIGITS) })}</Tag>;
  }
  return <Tag color="red">{intl.formatMessage(m.failed, { message: outcome.message })}</Tag>;
}

function ModelTestList({ channel, onClose }: { channel: Channel; onClose: () => void }) {
  const intl = useIntl();
  const [search, setSearch] = useState('');
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const [test] = useTestChannelMutation();
  const models = useMemo(() => commaList(channel.models), [channel.models]);
  const shown = models.filter((x) => x.toLowerCase().includes(search.trim().toLowerCase()));
  const run = async (model: string) => {
    setOutcomes((o) => ({ ...o, [model]: { state: 'testing' } }));
    try {
      const r = await test({ id: channel.id, model }).unwrap();
      setOutcomes((o) => ({ ...o, [model]: { state: 'ok', seconds: r.time } }));
    } catch (e) {
      setOutcomes((o) => ({ ...o, [model]: { state: 'failed', message: isApiError(e) ? e.message : String(e) } }));
    }
  };
  return (
    <Modal open title={intl.formatMessage(m.title, { name: channel.name })} onCancel={onClose} footer={null} width={640}>
      <Input.Search
        allowClear
        placeholder={intl.formatMessage(m.search)}
        value={search}
        onChange={(e) => setSearch(e.target.value)}
        style={{ marginBottom: 12 }}
      />
      <Table<string>
        size="small"
        rowKey={(x) => x}
        dataSource={shown}
        pagination={false}
        scroll={{ y: 400 }}
        columns={[
          { title: intl.formatMessage(m.model), render: (_, x) => x },
          { title: intl.formatMessage(m.result), render: (_, x) => <ResultCell outcome={outcomes[x]} /> },
          {
            key: 'test',
            width: 90,
            render: (_, x) => (
              <Button
                size="small"
                loading={outcomes[x]?.state === 'testing'}
                onClick={() => run(x)}
                data-testid={`model-test-${x}`}
              >
                {intl.formatMessage(am.test)}
              </Button>
            ),
          },
        ]}
      />
    </Modal>
  );
}

export function ModelTestDialog({ channel, onClose }: { channel: Channel | null; onClose: () => void }) {
  return channel ? <ModelTestList key={channel.id} channel={channel} onClose={onClose} /> : null;
}
