/** Batch tag dialog: gives the selected channels one tag (spec 2 §5.4 preconditions). */
import { Input, Modal } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { useBatchTagChannelsMutation } from './api';
import { batchTagDialog as m } from './messages';
import { validateBatchTag } from './rules';

export function BatchTagDialog({
  open,
  ids,
  onDone,
  onClose,
}: {
  open: boolean;
  ids: number[];
  onDone: () => void;
  onClose: () => void;
}) {
  const intl = useIntl();
  const [tag, setTag] = useState('');
  const [batchTag, { isLoading }] = useBatchTagChannelsMutation();
  const submit = async () => {
    if (reportProblem(intl, validateBatchTag(ids, tag))) return;
    const count = await batchTag({ ids, tag: tag.trim() })
      .unwrap()
      .catch(() => null);
    if (count === null) return;
    toast.success(intl.formatMessage(m.done, { count }));
    setTag('');
    onDone();
    onClose();
  };
  return (
    <Modal
      open={open}
      title={intl.formatMessage(m.title, { count: ids.length })}
      onCancel={onClose}
      onOk={submit}
      confirmLoading={isLoading}
      okButtonProps={{ 'data-testid': 'batch-tag-submit' }}
    >
      <Input
        value={tag}
        onChange={(e) => setTag(e.target.value)}
        onPressEnter={submit}
        placeholder={intl.formatMessage(m.placeholder)}
        data-testid="batch-tag-input"
      />
    </Modal>
  );
}
