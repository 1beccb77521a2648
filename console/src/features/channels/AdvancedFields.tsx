/** The advanced part of the channel form: the JSON fields (model mapping, status codes, settings, overrides) and extras. */
import { Button, Form, Input, InputNumber } from 'antd';
import { useIntl } from 'react-intl';
import { form as m } from './messages';

/** Examples shown in the help texts (and the model mapping template). */
const MODEL_MAPPING_EXAMPLE = '{"gpt-3.5-turbo": "gpt-4o-mini"}';
const STATUS_CODE_EXAMPLE = '{"400": "500"}';
/** Example of the setting JSON: `max_concurrency` caps the channel's requests in flight across all gateways. */
const SETTING_EXAMPLE = '{"force_format": true, "proxy": "socks5://host:1080", "max_concurrency": 20}';
const PARAM_OVERRIDE_EXAMPLE = '{"temperature": 0}';
const JSON_ROWS = { minRows: 2, maxRows: 8 };

function JsonField({ name, label, hint, testId }: { name: string; label: string; hint?: string; testId: string }) {
  return (
    <Form.Item label={label} name={name} extra={hint}>
      <Input.TextArea autoSize={JSON_ROWS} spellCheck={false} data-testid={testId} />
    </Form.Item>
  );
}

export function AdvancedFields() {
  const intl = useIntl();
  const form = Form.useFormInstance();
  return (
    <>
      <Form.Item
        label={intl.formatMessage(m.modelMapping)}
        extra={
          <>
            {intl.formatMessage(m.modelMappingHint, { example: MODEL_MAPPING_EXAMPLE })}{' '}
            <Button
              type="link"
              size="small"
              onClick={() => form.setFieldValue('model_mapping', JSON.stringify(JSON.parse(MODEL_MAPPING_EXAMPLE), null, 2))}
            >
              {intl.formatMessage(m.fillTemplate)}
            </Button>
          </>
        }
        name="model_mapping"
      >
        <Input.TextArea autoSize={JSON_ROWS} spellCheck={false} data-testid="channel-model-mapping" />
      </Form.Item>
      <JsonField
        name="status_code_mapping"
        label={intl.formatMessage(m.statusCodeMapping)}
        hint={intl.formatMessage(m.statusCodeMappingHint, { example: STATUS_CODE_EXAMPLE })}
        testId="channel-status-code-mapping"
      />
      <JsonField
        name="setting"
        label={intl.formatMessage(m.setting)}
        hint={intl.formatMessage(m.settingHint, { example: SETTING_EXAMPLE })}
        testId="channel-setting"
      />
      <JsonField
        name="param_override"
        label={intl.formatMessage(m.paramOverride)}
        hint={intl.formatMessage(m.paramOverrideHint, { example: PARAM_OVERRIDE_EXAMPLE })}
        testId="channel-param-override"
      />
      <JsonField name="header_override" label={intl.formatMessage(m.headerOverride)} testId="channel-header-override" />
      <Form.Item label={intl.formatMessage(m.modelPrefix)} name="model_prefix">
        <Input />
      </Form.Item>
      <Form.Item
        label={intl.formatMessage(m.maxInputTokens)}
        name="max_input_tokens"
        extra={intl.formatMessage(m.maxInputTokensHint)}
      >
        <InputNumber min={0} precision={0} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.remark)} name="remark">
        <Input />
      </Form.Item>
    </>
  );
}
