/**
 * The create/edit form of a channel: type switch (refills default models), per-type fields,
 * key with the multi-key view, models, groups, advanced JSON fields; the submit checks of
 * spec 2 §5.4 (incl. the /v1 base URL confirm) before saving. An edit that changes where the
 * stored key goes (base URL, header override, proxy) needs the key again.
 */
import { Button, Collapse, Divider, Form, Input, InputNumber, Modal, Select, Switch } from 'antd';
import { useMemo, useState } from 'react';
import { useIntl } from 'react-intl';
import { isApiError } from '../../shared/apiError';
import { toast } from '../../shared/feedback';
import { common, errors } from '../../shared/messages';
import { reportProblem } from '../../shared/problem';
import { useGetGroupsQuery } from '../users/api';
import { AdvancedFields } from './AdvancedFields';
import { useCreateChannelMutation, useUpdateChannelMutation } from './api';
import {
  CHANNEL_TYPE,
  CHANNEL_TYPE_KEYS,
  CREATE_MODE,
  DEFAULT_GROUP,
  DEFAULT_PRIORITY,
  DEFAULT_WEIGHT,
  MULTI_KEY_MODE,
  PRIORITY_MIN,
  WEIGHT_MIN,
  type MultiKeyMode,
} from './constants';
import { defaultModels, modelsAfterTypeChange } from './defaultModels';
import { KeyField, type MultiKeyState } from './KeyField';
import { form as m, rules, typeNames } from './messages';
import { ModelsField } from './ModelsField';
import {
  baseUrlEndsWithV1,
  channelBody,
  commaList,
  isMultiKeyInput,
  keyDestinationChanged,
  validateChannelSubmit,
  type ChannelFormValues,
} from './rules';
import { BaseUrlField, OrganizationField, OtherField, TypeNotice } from './TypeFields';
import type { Channel } from './types';

function initialValues(c: Channel | undefined): ChannelFormValues {
  return {
    type: c?.type ?? CHANNEL_TYPE.openai,
    name: c?.name ?? '',
    key: '',
    base_url: c?.base_url ?? '',
    other: c?.other ?? '',
    openai_organization: c?.openai_organization ?? '',
    models: c ? commaList(c.models) : defaultModels(CHANNEL_TYPE.openai),
    groups: c ? commaList(c.group) : [DEFAULT_GROUP],
    test_model: c?.test_model ?? '',
    model_mapping: c?.model_mapping ?? '',
    status_code_mapping: c?.status_code_mapping ?? '',
    setting: c?.setting ?? '',
    param_override: c?.param_override ?? '',
    header_override: c?.header_override ?? '',
    tag: c?.tag ?? '',
    model_prefix: c?.model_prefix ?? '',
    priority: c?.priority ?? DEFAULT_PRIORITY,
    weight: c?.weight ?? DEFAULT_WEIGHT,
    auto_ban: c ? c.auto_ban !== 0 : true,
    max_input_tokens: c?.max_input_tokens ?? 0,
    remark: c?.remark ?? '',
  };
}

export function ChannelForm({ channel, onDone }: { channel?: Channel; onDone: () => void }) {
  const intl = useIntl();
  const [form] = Form.useForm<ChannelFormValues>();
  const [modal, modalHolder] = Modal.useModal();
  const isEdit = channel !== undefined;
  const initial = useMemo(() => initialValues(channel), [channel]);
  const type: number = Form.useWatch('type', form) ?? initial.type;
  const keyText: string = Form.useWatch('key', form) ?? '';
  const models: string[] = Form.useWatch('models', form) ?? initial.models;
  const baseUrl: string = Form.useWatch('base_url', form) ?? initial.base_url;
  const headerOverride: string = Form.useWatch('header_override', form) ?? initial.header_override;
  const setting: string = Form.useWatch('setting', form) ?? initial.setting;
  const reenterKey = isEdit && keyDestinationChanged(initial, { base_url: baseUrl, header_override: headerOverride, setting });
  const [multi, setMulti] = useState<MultiKeyState>({
    viewDisabled: false,
    createMode: CREATE_MODE.batch,
    multiKeyMode: (channel?.multi_key_mode as MultiKeyMode) || MULTI_KEY_MODE.random,
  });
  const { data: groups = [] } = useGetGroupsQuery();
  const [create, { isLoading: creating }] = useCreateChannelMutation();
  const [update, { isLoading: updating }] = useUpdateChannelMutation();

  const typeOptions = useMemo(
    () =>
      CHANNEL_TYPE_KEYS.map((k) => ({
        value: CHANNEL_TYPE[k],
        label: `${intl.formatMessage(typeNames[k])} (${CHANNEL_TYPE[k]})`,
      })),
    [intl],
  );
  const groupOptions = useMemo(() => [...new Set([DEFAULT_GROUP, ...groups])].map((g) => ({ value: g, label: g })), [groups]);

  const onValuesChange = (changed: Partial<ChannelFormValues>) => {
    if (changed.type !== undefined && changed.type !== type) {
      form.setFieldValue('models', modelsAfterTypeChange(form.getFieldValue('models') ?? [], type, changed.type));
    }
  };

  const save = async (v: ChannelFormValues) => {
    const body = channelBody(v);
    const multiKey = isMultiKeyInput(v.key, v.type, multi.viewDisabled);
    try {
      if (isEdit) {
        const { key, ...rest } = body;
        await update({
          id: channel.id,
          ...rest,
          ...(key ? { key } : {}),
          multi_key_mode: multiKey || channel.key_count > 1 ? multi.multiKeyMode : undefined,
        }).unwrap();
        toast.success(intl.formatMessage(m.updated));
      } else {
        const mode = multiKey ? multi.createMode : CREATE_MODE.single;
        const ids = await create({ mode, multi_key_mode: multi.multiKeyMode, channel: body }).unwrap();
        toast.success(ids.length > 1 ? intl.formatMessage(m.createdMany, { count: ids.length }) : intl.formatMessage(m.created));
      }
      onDone();
    } catch (e) {
      // Server refusals are toasted by the API layer; a lost multi-key save is reported here.
      if (multiKey && isApiError(e) && e.status === 'FETCH_ERROR') toast.error(intl.formatMessage(errors.partialSaveFailed));
    }
  };

  const submit = async () => {
    const v = { ...initial, ...form.getFieldsValue(true) } as ChannelFormValues;
    if (reportProblem(intl, validateChannelSubmit(v, isEdit, initial))) return;
    try {
      await form.validateFields();
    } catch {
      toast.error(intl.formatMessage(rules.checkInput));
      return;
    }
    if (baseUrlEndsWithV1(v.base_url)) {
      const confirmed = await modal.confirm({
        title: intl.formatMessage(rules.baseUrlV1Title),
        content: intl.formatMessage(rules.baseUrlV1Content),
        okButtonProps: { 'data-testid': 'base-url-v1-confirm' },
      });
      if (!confirmed) return;
    }
    await save(v);
  };

  return (
    <Form<ChannelFormValues>
      form={form}
      layout="vertical"
      initialValues={initial}
      onValuesChange={onValuesChange}
      requiredMark={false}
      data-testid="channel-form"
    >
      {modalHolder}
      <TypeNotice type={type} />
      <Form.Item label={intl.formatMessage(m.type)} name="type">
        <Select showSearch={{ optionFilterProp: 'label' }} options={typeOptions} data-testid="channel-type" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.name)} name="name" required>
        <Input placeholder={intl.formatMessage(m.namePlaceholder)} data-testid="channel-name" />
      </Form.Item>
      <BaseUrlField type={type} />
      <KeyField
        type={type}
        keyText={keyText}
        isEdit={isEdit}
        keyCount={channel?.key_count ?? 0}
        reenter={reenterKey}
        state={multi}
        onState={setMulti}
      />
      <OrganizationField type={type} />
      <OtherField type={type} />
      <Divider titlePlacement="start">{intl.formatMessage(m.modelsSection)}</Divider>
      <Form.Item label={intl.formatMessage(m.groups)} name="groups">
        <Select mode="tags" options={groupOptions} data-testid="channel-groups" />
      </Form.Item>
      <ModelsField type={type} channelId={channel?.id} />
      <Form.Item label={intl.formatMessage(m.testModel)} name="test_model">
        <Select
          allowClear
          showSearch
          placeholder={intl.formatMessage(m.testModelPlaceholder)}
          options={models.map((x) => ({ value: x, label: x }))}
          data-testid="channel-test-model"
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.tag)} name="tag">
        <Input placeholder={intl.formatMessage(m.tagPlaceholder)} data-testid="channel-tag" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.priority)} name="priority">
        <InputNumber min={PRIORITY_MIN} precision={0} style={{ width: '100%' }} data-testid="channel-priority" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.weight)} name="weight">
        <InputNumber min={WEIGHT_MIN} precision={0} style={{ width: '100%' }} data-testid="channel-weight" />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.autoBan)} name="auto_ban" valuePropName="checked">
        <Switch />
      </Form.Item>
      <Collapse
        style={{ marginBottom: 16 }}
        items={[{ key: 'advanced', label: intl.formatMessage(m.advanced), children: <AdvancedFields />, forceRender: true }]}
      />
      <Button type="primary" block loading={creating || updating} onClick={submit} data-testid="channel-submit">
        {intl.formatMessage(common.submit)}
      </Button>
    </Form>
  );
}
