/** Type-specific parts of the channel form (spec 2 §4.2): notice, base URL, organization and the meaning of `other`. */
import { Alert, Form, Input, Select } from 'antd';
import { useIntl } from 'react-intl';
import { typeForm, type OtherField } from './channelTypes';
import { AZURE_DEFAULT_API_VERSION, VERTEX_DEFAULT_REGION, VOLCENGINE_BASE_URLS, XUNFEI_DEFAULT_VERSION } from './constants';
import { form as m, notices, otherFields as o } from './messages';

/** An example of the Vertex per-model region JSON. */
const VERTEX_REGION_EXAMPLE = '{"default": "us-central1", "claude-sonnet-4@20250514": "us-east5"}';

const OTHER_HINT_VALUES: Record<OtherField, Record<string, string>> = {
  azureApiVersion: { version: AZURE_DEFAULT_API_VERSION },
  aliPlugin: {},
  xunfeiVersion: { version: XUNFEI_DEFAULT_VERSION },
  knowledgeBaseId: {},
  cloudflareAccountId: {},
  vertexRegion: { example: VERTEX_REGION_EXAMPLE, fallback: VERTEX_DEFAULT_REGION },
  cozeBotId: {},
};

export function TypeNotice({ type }: { type: number }) {
  const intl = useIntl();
  const { notice } = typeForm(type);
  if (!notice) return null;
  return (
    <Alert
      type="info"
      showIcon
      style={{ marginBottom: 16 }}
      title={intl.formatMessage(notices[notice], { model: '{model}' })}
      data-testid="channel-type-notice"
    />
  );
}

export function BaseUrlField({ type }: { type: number }) {
  const intl = useIntl();
  const spec = typeForm(type);
  if (spec.baseUrl === 'volcEngine') {
    return (
      <Form.Item label={intl.formatMessage(m.baseUrl)} name="base_url">
        <Select options={VOLCENGINE_BASE_URLS.map((u) => ({ value: u, label: u }))} data-testid="channel-base-url" />
      </Form.Item>
    );
  }
  const fullUrl = spec.baseUrl === 'fullUrl';
  const placeholder = fullUrl
    ? intl.formatMessage(m.fullUrlPlaceholder, { model: '{model}' })
    : spec.baseUrl === 'required'
      ? intl.formatMessage(m.baseUrlRequired)
      : spec.defaultBaseUrl
        ? intl.formatMessage(m.baseUrlDefault, { url: spec.defaultBaseUrl })
        : intl.formatMessage(m.baseUrlOptional);
  return (
    <Form.Item
      label={intl.formatMessage(fullUrl ? m.fullUrl : m.baseUrl)}
      name="base_url"
      rules={spec.baseUrl === 'prefix' ? [] : [{ required: true, message: placeholder }]}
    >
      <Input placeholder={placeholder} data-testid="channel-base-url" />
    </Form.Item>
  );
}

export function OrganizationField({ type }: { type: number }) {
  const intl = useIntl();
  if (!typeForm(type).organization) return null;
  return (
    <Form.Item label={intl.formatMessage(m.organization)} name="openai_organization">
      <Input placeholder={intl.formatMessage(m.organizationPlaceholder)} />
    </Form.Item>
  );
}

const HINTS = {
  azureApiVersion: o.azureApiVersionHint,
  aliPlugin: o.aliPluginHint,
  xunfeiVersion: o.xunfeiVersionHint,
  knowledgeBaseId: o.knowledgeBaseIdHint,
  cloudflareAccountId: o.cloudflareAccountIdHint,
  vertexRegion: o.vertexRegionHint,
  cozeBotId: o.cozeBotIdHint,
} as const;

export function OtherField({ type }: { type: number }) {
  const intl = useIntl();
  const field = typeForm(type).other;
  if (!field) return null;
  const hint = intl.formatMessage(HINTS[field], OTHER_HINT_VALUES[field]);
  return (
    <Form.Item label={intl.formatMessage(o[field])} name="other" extra={field === 'vertexRegion' ? hint : undefined}>
      {field === 'vertexRegion' ? (
        <Input.TextArea autoSize={{ minRows: 1, maxRows: 6 }} placeholder={VERTEX_DEFAULT_REGION} data-testid="channel-other" />
      ) : (
        <Input placeholder={hint} data-testid="channel-other" />
      )}
    </Form.Item>
  );
}
