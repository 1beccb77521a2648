/**
 * The key field with its multi-key view (spec 2 §4.2): commas or newlines switch the view on
 * (never for Vertex, whose key is one JSON document, nor once the user switched it off). The
 * view counts the keys and asks how to save them. On edits that send the key somewhere new
 * (base URL, header override or proxy changed) the field is required and says so.
 */
import { Alert, Flex, Form, Input, Radio, Switch, Typography } from 'antd';
import { useIntl } from 'react-intl';
import { typeForm } from './channelTypes';
import { CHANNEL_TYPE, CREATE_MODE, MULTI_KEY_MODE, type CreateMode, type MultiKeyMode } from './constants';
import { form as m, keyFormats } from './messages';
import { isMultiKeyInput, splitKeys } from './rules';

export interface MultiKeyState {
  viewDisabled: boolean;
  createMode: CreateMode;
  multiKeyMode: MultiKeyMode;
}

export function KeyField({
  type,
  keyText,
  isEdit,
  keyCount,
  reenter = false,
  state,
  onState,
}: {
  type: number;
  keyText: string;
  isEdit: boolean;
  keyCount: number;
  /** The edit sends the key somewhere new (base URL, header override or proxy): the key is required. */
  reenter?: boolean;
  state: MultiKeyState;
  onState: (s: MultiKeyState) => void;
}) {
  const intl = useIntl();
  const spec = typeForm(type);
  const typed = isMultiKeyInput(keyText, type, state.viewDisabled);
  /** A saved multi-key channel keeps its view (and key selection mode) even with the field blank. */
  const storedMulti = isEdit && keyCount > 1 && keyText.trim() === '';
  const multi = typed || storedMulti;
  const keys = storedMulti ? [] : splitKeys(keyText, type);
  const missing = reenter && keyText.trim() === '';
  const placeholder = reenter
    ? intl.formatMessage(m.keyReenter)
    : isEdit
      ? intl.formatMessage(m.keyKeep, { count: keyCount })
      : spec.keyFormat
        ? intl.formatMessage(keyFormats[spec.keyFormat])
        : intl.formatMessage(m.keyPlaceholder);
  const canSplit = type !== CHANNEL_TYPE.vertexAi;
  return (
    <>
      <Form.Item
        label={
          <Flex gap={12} align="center">
            {intl.formatMessage(m.key)}
            {canSplit && (
              <Flex gap={4} align="center">
                <Switch
                  size="small"
                  checked={!state.viewDisabled}
                  onChange={(on) => onState({ ...state, viewDisabled: !on })}
                  data-testid="multi-key-switch"
                />
                <Typography.Text type="secondary">{intl.formatMessage(m.multiKeyView)}</Typography.Text>
              </Flex>
            )}
          </Flex>
        }
        name="key"
        required={reenter}
        validateStatus={missing ? 'warning' : undefined}
        help={missing ? <span data-testid="channel-key-reenter">{intl.formatMessage(m.keyReenter)}</span> : undefined}
        extra={isEdit && spec.keyFormat ? intl.formatMessage(keyFormats[spec.keyFormat]) : undefined}
      >
        <Input.TextArea
          autoSize={multi || type === CHANNEL_TYPE.vertexAi ? { minRows: 4, maxRows: 12 } : { minRows: 1, maxRows: 4 }}
          placeholder={placeholder}
          autoComplete="off"
          spellCheck={false}
          data-testid="channel-key"
        />
      </Form.Item>
      {multi && (
        <Alert
          type="info"
          style={{ marginBottom: 16 }}
          data-testid="multi-key-view"
          title={intl.formatMessage(storedMulti ? m.keysStored : m.keysDetected, { count: storedMulti ? keyCount : keys.length })}
          description={
            <Flex vertical gap={8}>
              {!isEdit && (
                <Flex gap={8} align="center" wrap>
                  <Typography.Text>{intl.formatMessage(m.createMode)}</Typography.Text>
                  <Radio.Group
                    value={state.createMode}
                    onChange={(e) => onState({ ...state, createMode: e.target.value as CreateMode })}
                    options={[
                      { value: CREATE_MODE.batch, label: intl.formatMessage(m.batchMode) },
                      { value: CREATE_MODE.multiToSingle, label: intl.formatMessage(m.multiToSingle) },
                    ]}
                    data-testid="multi-key-create-mode"
                  />
                </Flex>
              )}
              {(isEdit || state.createMode === CREATE_MODE.multiToSingle) && (
                <Flex gap={8} align="center" wrap>
                  <Typography.Text>{intl.formatMessage(m.multiKeyMode)}</Typography.Text>
                  <Radio.Group
                    value={state.multiKeyMode}
                    onChange={(e) => onState({ ...state, multiKeyMode: e.target.value as MultiKeyMode })}
                    options={[
                      { value: MULTI_KEY_MODE.random, label: intl.formatMessage(m.random) },
                      { value: MULTI_KEY_MODE.polling, label: intl.formatMessage(m.polling) },
                    ]}
                  />
                </Flex>
              )}
            </Flex>
          }
        />
      )}
    </>
  );
}
