/** The user object the Telegram Login Widget hands to its onauth callback. */
export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  photo_url?: string;
  auth_date: number;
  hash: string;
}

/** The widget's fields as query parameters, exactly as given (the server checks the hash over them). */
export function telegramQuery(user: TelegramUser): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(user)) {
    if (v !== undefined && v !== null) out[k] = String(v);
  }
  return out;
}
