/** The side drawer for /channel/add and /channel/edit/:id: loads the channel being edited and hosts the form. */
import { Drawer, Empty, Spin } from 'antd';
import { useIntl } from 'react-intl';
import { useGetChannelQuery } from './api';
import { ChannelForm } from './ChannelForm';
import { form as m, rules } from './messages';

const DRAWER_WIDTH = 640;

function EditBody({ id, onClose }: { id: number; onClose: () => void }) {
  const intl = useIntl();
  const { data, isFetching, isError } = useGetChannelQuery(id, { refetchOnMountOrArgChange: true });
  if (isFetching) return <Spin />;
  if (isError || !data) return <Empty description={intl.formatMessage(rules.channelNotFound)} />;
  return <ChannelForm key={data.id} channel={data} onDone={onClose} />;
}

export function ChannelDrawer({ mode, id, onClose }: { mode: 'add' | 'edit' | null; id?: number; onClose: () => void }) {
  const intl = useIntl();
  const title = mode === 'edit' ? intl.formatMessage(m.editTitle, { id }) : intl.formatMessage(m.addTitle);
  return (
    <Drawer open={mode !== null} onClose={onClose} title={title} size={DRAWER_WIDTH} destroyOnHidden>
      {mode === 'add' && <ChannelForm onDone={onClose} />}
      {mode === 'edit' && id !== undefined && !Number.isNaN(id) && <EditBody id={id} onClose={onClose} />}
    </Drawer>
  );
}
