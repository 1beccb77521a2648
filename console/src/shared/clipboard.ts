import type { IntlShape } from 'react-intl';
import { Modal, Typography } from 'antd';
import { createElement } from 'react';
import { toast } from './feedback';
import { common, errors } from './messages';

export async function writeClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Copies text; on failure shows the catalogue's message and a dialog with the text to copy by hand. */
export async function copyWithFallback(intl: IntlShape, text: string, successText?: string): Promise<boolean> {
  if (await writeClipboard(text)) {
    toast.success(successText ?? intl.formatMessage(common.copied));
    return true;
  }
  toast.error(intl.formatMessage(errors.copyFailed));
  Modal.info({
    title: intl.formatMessage(errors.copyFailed),
    content: createElement(Typography.Paragraph, { copyable: true, code: true }, text),
  });
  return false;
}
