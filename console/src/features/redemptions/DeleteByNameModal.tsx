/** Deletes every code with a given name, after showing how many there are. */
import { Button, Input, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { useDeleteRedemptionsByNameMutation, useLazyCountRedemptionsByNameQuery } from './api';
import { byName as m, redemptions } from './messages';
import { validateName } from './rules';

export function DeleteByNameModal({ open, onClose }: { open: boolean; onClose: () => void }) {
  const intl = useIntl();
  const [name, setName] = useState('');
  const [counted, setCounted] = useState<{ name: string; count: number } | undefined>();
  const [count, { isFetching }] = useLazyCountRedemptionsByNameQuery();
  const [remove, { isLoading }] = useDeleteRedemptionsByNameMutation();

  const close = () => {
    setName('');
    setCounted(undefined);
    onClose();
  };
  const onCount = async () => {
    if (reportProblem(intl, validateName(name))) return;
    const n = name.trim();
    const res = await count(n)
      .unwrap()
      .catch(() => undefined);
    if (res !== undefined) setCounted({ name: n, count: res });
  };
  const onDelete = async () => {
    if (!counted) return;
    const res = await remove(counted.name)
      .unwrap()
      .catch(() => undefined);
    if (res === undefined) return;
    toast.success(intl.formatMessage(redemptions.deletedCount, { count: res }));
    close();
  };

  return (
    <Modal open={open} title={intl.formatMessage(m.title)} onCancel={close} footer={null} destroyOnHidden>
      <Space.Compact style={{ width: '100%', marginBottom: 12 }}>
        <Input
          placeholder={intl.formatMessage(m.name)}
          value={name}
          onChange={(e) => {
            setName(e.target.value);
            setCounted(undefined);
          }}
          onPressEnter={onCount}
          data-testid="by-name-input"
        />
        <Button onClick={onCount} loading={isFetching} data-testid="by-name-count">
          {intl.formatMessage(m.count)}
        </Button>
      </Space.Compact>
      {counted && (
        <Space orientation="vertical" style={{ width: '100%' }}>
          <Typography.Text data-testid="by-name-result">
            {intl.formatMessage(m.counted, { count: counted.count, name: counted.name })}
          </Typography.Text>
          <Button
            danger
            type="primary"
            block
            disabled={counted.count === 0}
            loading={isLoading}
            onClick={onDelete}
            data-testid="by-name-delete"
          >
            {intl.formatMessage(m.delete)}
          </Button>
        </Space>
      )}
    </Modal>
  );
}
