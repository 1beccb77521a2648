import { Button, Card, Descriptions, Input, InputNumber, Modal, Space, Typography } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import type { User } from '../../api/types';
import { copyWithFallback } from '../../shared/clipboard';
import { toast } from '../../shared/feedback';
import { common } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { renderQuota, renderQuotaHint } from '../../shared/quota';
import { validateAffTransfer } from '../../shared/validation';
import { useQuotaDisplay } from '../status/useStatus';
import { useAffTransferMutation, useGetAffCodeQuery } from './api';
import { invitation as m } from './messages';
import { succeeded } from '../../shared/succeeded';

function TransferModal({ user, open, onClose }: { user: User; open: boolean; onClose: () => void }) {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const [amount, setAmount] = useState<number | null>(user.aff_quota);
  const [transfer, { isLoading }] = useAffTransferMutation();
  const onOk = async () => {
    const quota = Math.trunc(amount ?? 0);
    const min = renderQuota(display.quotaPerUnit, { ...display, displayInCurrency: true });
    if (reportProblem(intl, validateAffTransfer(quota, display.quotaPerUnit, min))) return;
    const ok = await succeeded(transfer({ quota }));
    if (ok) {
      toast.success(intl.formatMessage(m.transferred));
      onClose();
    }
  };
  return (
    <Modal open={open} onCancel={onClose} onOk={onOk} confirmLoading={isLoading} title={intl.formatMessage(m.transfer)}>
      <Typography.Paragraph>
        {intl.formatMessage(m.transferAmount, { available: renderQuota(user.aff_quota, display) })}
      </Typography.Paragraph>
      <InputNumber style={{ width: '100%' }} precision={0} min={0} value={amount} onChange={setAmount} />
      <Typography.Text type="secondary">{renderQuotaHint(amount ?? 0, display.quotaPerUnit)}</Typography.Text>
    </Modal>
  );
}

export function InvitationCard({ user }: { user: User }) {
  const intl = useIntl();
  const display = useQuotaDisplay();
  const { data: code } = useGetAffCodeQuery();
  const [open, setOpen] = useState(false);
  const link = code ? `${window.location.origin}/register?aff=${code}` : '';
  return (
    <Card title={intl.formatMessage(m.title)} data-testid="invitation-card">
      <Typography.Text strong>{intl.formatMessage(m.link)}</Typography.Text>
      <Space.Compact style={{ width: '100%', margin: '4px 0 16px' }}>
        <Input readOnly value={link} />
        <Button disabled={!link} onClick={() => copyWithFallback(intl, link)}>
          {intl.formatMessage(common.copy)}
        </Button>
      </Space.Compact>
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'pending', label: intl.formatMessage(m.pending), children: renderQuota(user.aff_quota, display) },
          { key: 'history', label: intl.formatMessage(m.history), children: renderQuota(user.aff_history_quota, display) },
          { key: 'count', label: intl.formatMessage(m.count), children: user.aff_count },
        ]}
      />
      <Button onClick={() => setOpen(true)} disabled={user.aff_quota <= 0}>
        {intl.formatMessage(m.transfer)}
      </Button>
      {open && <TransferModal user={user} open={open} onClose={() => setOpen(false)} />}
    </Card>
  );
}
