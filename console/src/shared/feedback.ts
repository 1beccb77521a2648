/** Toasts from anywhere (API middleware, helpers): the antd App's message API, set once by <FeedbackBridge/>. */
import { message as staticMessage } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';

let instance: MessageInstance | undefined;

export function setMessageInstance(m: MessageInstance | undefined): void {
  instance = m;
}

function api(): MessageInstance {
  return instance ?? staticMessage;
}

export const toast = {
  success: (text: string) => void api().success(text),
  error: (text: string) => void api().error(text),
  warning: (text: string) => void api().warning(text),
  info: (text: string) => void api().info(text),
};
