/**
 * The playground's side panel (spec 3 §2.6): group, model, temperature, top_p, max tokens,
 * system prompt and the stream switch. Every change is kept in the browser at once.
 */
import { UndoOutlined } from '@ant-design/icons';
import { Button, Flex, Form, Input, InputNumber, Select, Slider, Space, Switch, Tag, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { groupRatioColor } from '../../shared/quota';
import { useGetUserModelsQuery } from '../personal/api';
import {
  MAX_TOKENS_MAX,
  TEMPERATURE_MAX,
  TEMPERATURE_MIN,
  TEMPERATURE_STEP,
  TOP_P_MAX,
  TOP_P_MIN,
  TOP_P_STEP,
} from './constants';
import { params as m } from './messages';
import { modelChoices, parseMaxTokens, shownTemperature } from './params';
import type { PlaygroundParams } from './types';
import type { GroupChoiceState } from './useGroupChoice';

interface Props {
  value: PlaygroundParams;
  groups: GroupChoiceState;
  onChange: (patch: Partial<PlaygroundParams>) => void;
  onReset: () => void;
}

const SLIDER_ROW = { display: 'flex', alignItems: 'center', gap: 12 } as const;

export function ParamsPanel({ value, groups, onChange, onReset }: Props) {
  const intl = useIntl();
  const modelsQuery = useGetUserModelsQuery();
  const { choices, group } = groups;
  const models = modelChoices(modelsQuery.data ?? [], value.model);
  const temperature = shownTemperature(value.temperature);

  return (
    <Form layout="vertical" component="div" data-testid="pg-params">
      <Form.Item label={intl.formatMessage(m.group)} htmlFor="pg-group">
        <Select
          id="pg-group"
          loading={groups.loading}
          value={group || undefined}
          placeholder={intl.formatMessage(m.noGroups)}
          disabled={!groups.loading && choices.length === 0}
          onChange={(g: string) => onChange({ group: g })}
          options={choices.map((c) => ({
            value: c.name,
            label: (
              <Space size={4}>
                <span>{c.name}</span>
                <Tag color={groupRatioColor(c.ratio)} style={{ marginInlineEnd: 0 }}>
                  {intl.formatMessage(m.groupRatio, { ratio: c.ratio })}
                </Tag>
              </Space>
            ),
          }))}
          data-testid="pg-group"
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.model)} htmlFor="pg-model">
        <Select
          id="pg-model"
          showSearch
          loading={modelsQuery.isLoading}
          value={value.model}
          onChange={(model: string) => onChange({ model })}
          options={models.map((name) => ({ value: name, label: name }))}
          data-testid="pg-model"
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.temperature)}>
        <div style={SLIDER_ROW}>
          <Slider
            style={{ flex: 1 }}
            min={TEMPERATURE_MIN}
            max={TEMPERATURE_MAX}
            step={TEMPERATURE_STEP}
            value={temperature}
            onChange={(t: number) => onChange({ temperature: t })}
            aria-label={intl.formatMessage(m.temperature)}
            data-testid="pg-temperature"
          />
          <Typography.Text code style={{ minWidth: 36, textAlign: 'center' }} data-testid="pg-temperature-value">
            {temperature.toFixed(1)}
          </Typography.Text>
        </div>
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.topP)} extra={intl.formatMessage(m.topPHint)}>
        <div style={SLIDER_ROW}>
          <Slider
            style={{ flex: 1 }}
            min={TOP_P_MIN}
            max={TOP_P_MAX}
            step={TOP_P_STEP}
            value={value.topP}
            onChange={(topP: number) => onChange({ topP })}
            aria-label={intl.formatMessage(m.topP)}
            data-testid="pg-top-p"
          />
          <Typography.Text code style={{ minWidth: 36, textAlign: 'center' }}>
            {value.topP.toFixed(2)}
          </Typography.Text>
        </div>
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.maxTokens)} extra={intl.formatMessage(m.maxTokensHint)} htmlFor="pg-max-tokens">
        <InputNumber
          id="pg-max-tokens"
          style={{ width: '100%' }}
          min={0}
          max={MAX_TOKENS_MAX}
          step={1}
          precision={0}
          value={value.maxTokens}
          onChange={(v) => onChange({ maxTokens: parseMaxTokens(v) })}
          data-testid="pg-max-tokens"
        />
      </Form.Item>
      <Form.Item label={intl.formatMessage(m.systemPrompt)} htmlFor="pg-system-prompt">
        <Input.TextArea
          id="pg-system-prompt"
          autoSize={{ minRows: 3, maxRows: 10 }}
          placeholder={intl.formatMessage(m.systemPromptPlaceholder)}
          value={value.systemPrompt}
          onChange={(e) => onChange({ systemPrompt: e.target.value })}
          data-testid="pg-system-prompt"
        />
      </Form.Item>
      <Flex justify="space-between" align="center" wrap gap={8}>
        <Space>
          <Switch id="pg-stream" checked={value.stream} onChange={(stream) => onChange({ stream })} data-testid="pg-stream" />
          <label htmlFor="pg-stream">{intl.formatMessage(m.stream)}</label>
        </Space>
        <Button size="small" icon={<UndoOutlined />} onClick={onReset} data-testid="pg-params-reset">
          {intl.formatMessage(m.reset)}
        </Button>
      </Flex>
    </Form>
  );
}
