import type { MessageDescriptor } from 'react-intl';

/**
 * Declares a group of messages (namespaced id, English default, description).
 * A plain identity: react-intl 12's typed `defineMessages` infers `{}` values and
 * rejects placeholders at the call site.
 */
export function defineMessages<K extends string>(
  messages: Record<K, MessageDescriptor & { id: string; defaultMessage: string; description: string }>,
): Record<K, MessageDescriptor> {
  return messages;
}
