/** Tag edit dialog: changes every channel carrying a tag; only changed fields are sent (spec 2 §5.4). */
import { Alert, Form, Input, InputNumber, Modal, Select } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { useGetGroupsQuery } from '../users/api';
import { useEditTagMutation, useEnabledModelsQuery } from './api';
import { form as fm, tagDialog as m } from './messages';
import { tagEditBody, type TagEditValues } from './rules';
import type { TagRow } from './tagRows';

function initialValues(row: TagRow): TagEditValues {
  return {
    new_tag: row.tag,
    models: row.models,
    groups: row.groups,
    model_mapping: '',
    priority: row.priority,
    weight: row.weight,
  };
}

function TagEditForm({ row, onClose }: { row: TagRow; onClose: () => void }) {
  const intl = useIntl();
  const initial = useMemo(() => initialValues(row), [row]);
  const [draft, setDraft] = useState<TagEditValues>(initial);
  const { data: groups = [] } = useGetGroupsQuery();
  const { data: enabled = [] } = useEnabledModelsQuery();
  const [editTag, { isLoading }] = useEditTagMutation();
  const modelOptions = useMemo(
    () => [...new Set([...draft.models, ...enabled])].map((x) => ({ value: x, label: x })),
    [draft.models, enabled],
  );
  const submit = async () => {
    const r = tagEditBody(row.tag, initial, draft);
    if (reportProblem(intl, r.problem)) return;
    const count = await editTag(r.body!)
      .unwrap()
      .catch(() => null);
    if (count === null) return;
    toast.success(intl.formatMessage(m.done, { count }));
    onClose();
  };
  return (
    <Modal
      open
      title={intl.formatMessage(m.title, { tag: row.tag })}
      onCancel={onClose}
      onOk={submit}
      confirmLoading={isLoading}
      okButtonProps={{ 'data-testid': 'tag-edit-submit' }}
      width={600}
    >
      <Alert type="info" showIcon title={intl.formatMessage(m.hint)} style={{ marginBottom: 16 }} />
      <Form layout="vertical">
        <Form.Item label={intl.formatMessage(m.newTag)}>
          <Input
            value={draft.new_tag}
            placeholder={intl.formatMessage(m.newTagPlaceholder)}
            onChange={(e) => setDraft({ ...draft, new_tag: e.target.value })}
            data-testid="tag-edit-new-tag"
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(fm.models)}>
          <Select
            mode="tags"
            value={draft.models}
            options={modelOptions}
            onChange={(v: string[]) => setDraft({ ...draft, models: v })}
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(fm.groups)}>
          <Select
            mode="multiple"
            value={draft.groups}
            options={groups.map((g) => ({ value: g, label: g }))}
            onChange={(v: string[]) => setDraft({ ...draft, groups: v })}
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(fm.modelMapping)}>
          <Input.TextArea
            autoSize={{ minRows: 2, maxRows: 6 }}
            value={draft.model_mapping}
            onChange={(e) => setDraft({ ...draft, model_mapping: e.target.value })}
            data-testid="tag-edit-mapping"
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(fm.priority)}>
          <InputNumber
            style={{ width: '100%' }}
            value={draft.priority}
            onChange={(v) => setDraft({ ...draft, priority: v })}
            data-testid="tag-edit-priority"
          />
        </Form.Item>
        <Form.Item label={intl.formatMessage(fm.weight)}>
          <InputNumber
            style={{ width: '100%' }}
            value={draft.weight}
            onChange={(v) => setDraft({ ...draft, weight: v })}
            data-testid="tag-edit-weight"
          />
        </Form.Item>
      </Form>
    </Modal>
  );
}

export function TagEditDialog({ row, onClose }: { row: TagRow | null; onClose: () => void }) {
  return row ? <TagEditForm key={row.key} row={row} onClose={onClose} /> : null;
}
