/**
 * The model list of the channel form: a tag select plus "fill related models", "fill all
 * models", fetch from the upstream (saved: by id; unsaved: needs a key), clear, custom entry
 * (commas or whitespace, duplicates reported) and the advanced picker.
 */
import { Button, Flex, Form, Input, Select, Space } from 'antd';
import { useState } from 'react';
import { useIntl } from 'react-intl';
import { toast } from '../../shared/feedback';
import { reportProblem } from '../../shared/problem';
import { useFetchModelsMutation, useFetchSavedModelsMutation, useLazyAllModelsQuery, useLazyEnabledModelsQuery } from './api';
import { defaultModels } from './defaultModels';
import { form as m, rules } from './messages';
import { ModelPickerDialog, type PickerSource } from './ModelPickerDialog';
import { addCustomModels, fetchedModelList, mergeModels, normalizeBaseUrl, validateFetchModels } from './rules';

export function ModelsField({ type, channelId }: { type: number; channelId: number | undefined }) {
  const intl = useIntl();
  const form = Form.useFormInstance();
  const models: string[] = Form.useWatch('models', form) ?? [];
  const [custom, setCustom] = useState('');
  const [fetched, setFetched] = useState<string[] | null>(null);
  const [picker, setPicker] = useState<PickerSource | null>(null);
  const [fetchSaved, { isLoading: fetchingSaved }] = useFetchSavedModelsMutation();
  const [fetchUnsaved, { isLoading: fetchingUnsaved }] = useFetchModelsMutation();
  const [loadAll, { isFetching: loadingAll }] = useLazyAllModelsQuery();
  const [loadEnabled, { isFetching: loadingEnabled }] = useLazyEnabledModelsQuery();
  const isEdit = channelId !== undefined;
  const setModels = (list: string[]) => form.setFieldValue('models', list);

  const fetchUpstream = async () => {
    const key: string = form.getFieldValue('key') ?? '';
    if (reportProblem(intl, validateFetchModels(isEdit, key))) return;
    const call = isEdit
      ? fetchSaved(channelId)
      : fetchUnsaved({
          type,
          key,
          base_url: normalizeBaseUrl(form.getFieldValue('base_url')),
          // Azure's api-version, Vertex's region and key type shape the upstream's model list.
          other: form.getFieldValue('other') ?? '',
          setting: form.getFieldValue('setting') ?? '',
        });
    const data = await call.unwrap().catch(() => undefined);
    if (data === undefined) return;
    const list = fetchedModelList(data);
    if (!list) {
      toast.error(intl.formatMessage(rules.fetchedNotList));
      return;
    }
    toast.success(intl.formatMessage(m.fetched, { count: list.length }));
    setFetched(list);
    setPicker({ models: list, fromUpstream: true });
  };

  const fillAll = async () => {
    const items = await loadAll(undefined, true)
      .unwrap()
      .catch(() => null);
    if (!items) {
      toast.error(intl.formatMessage(rules.modelListFailed));
      return;
    }
    setModels(
      mergeModels(
        models,
        items.map((x) => x.id),
      ),
    );
  };

  const openPicker = async () => {
    if (fetched) {
      setPicker({ models: fetched, fromUpstream: true });
      return;
    }
    const list = await loadEnabled(undefined, true)
      .unwrap()
      .catch(() => null);
    if (!list) {
      toast.error(intl.formatMessage(rules.enabledModelsFailed));
      return;
    }
    setPicker({ models: mergeModels(list, []), fromUpstream: false });
  };

  const addCustom = () => {
    const r = addCustomModels(custom, models);
    if (r.duplicates.length > 0) toast.info(intl.formatMessage(rules.customDuplicates, { models: r.duplicates.join(', ') }));
    if (r.added.length > 0) {
      setModels(r.models);
      toast.success(intl.formatMessage(rules.customAdded, { count: r.added.length }));
    }
    setCustom('');
  };

  return (
    <>
      <Form.Item label={intl.formatMessage(m.models)} required>
        <Form.Item name="models" noStyle>
          <Select
            mode="multiple"
            allowClear
            placeholder={intl.formatMessage(m.modelsPlaceholder)}
            options={models.map((x) => ({ value: x, label: x }))}
            maxTagCount="responsive"
            data-testid="channel-models"
          />
        </Form.Item>
        <Flex gap={4} wrap style={{ marginTop: 8 }}>
          <Button size="small" onClick={() => setModels(mergeModels(models, defaultModels(type)))} data-testid="fill-related">
            {intl.formatMessage(m.fillRelated)}
          </Button>
          <Button size="small" loading={loadingAll} onClick={fillAll} data-testid="fill-all">
            {intl.formatMessage(m.fillAll)}
          </Button>
          <Button size="small" loading={fetchingSaved || fetchingUnsaved} onClick={fetchUpstream} data-testid="fetch-models">
            {intl.formatMessage(m.fetchModels)}
          </Button>
          <Button size="small" loading={loadingEnabled} onClick={openPicker} data-testid="pick-models">
            {intl.formatMessage(m.pickModels)}
          </Button>
          <Button size="small" danger onClick={() => setModels([])} data-testid="clear-models">
            {intl.formatMessage(m.clearModels)}
          </Button>
        </Flex>
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.customModels)}>
        <Space.Compact style={{ width: '100%' }}>
          <Input
            value={custom}
            placeholder={intl.formatMessage(m.customPlaceholder)}
            onChange={(e) => setCustom(e.target.value)}
            onPressEnter={(e) => {
              e.preventDefault();
              addCustom();
            }}
            data-testid="custom-models"
          />
          <Button onClick={addCustom} data-testid="custom-models-add">
            {intl.formatMessage(m.addCustom)}
          </Button>
        </Space.Compact>
      </Form.Item>
      <ModelPickerDialog source={picker} selected={models} onSave={setModels} onClose={() => setPicker(null)} />
    </>
  );
}
