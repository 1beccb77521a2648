/**
 * API types used by the console. Until the control plane's OpenAPI document is committed
 * (control-plane/openapi.json → `npm run gen:api` → schema.d.ts), these are the narrow
 * contract types; this is the ONLY file to switch to the generated ones.
 */

export interface Envelope<T> {
  success: boolean;
  message: string;
  data: T;
}

export interface Page<T> {
  items: T[];
  page: number;
  page_size: number;
  total: number;
}

export interface User {
  id: number;
  username: string;
  display_name: string;
  role: number;
  status: number;
  email: string;
  group: string;
  quota: number;
  used_quota: number;
  request_count: number;
  aff_code: string;
  aff_count: number;
  aff_quota: number;
  aff_history_quota: number;
  inviter_id: number;
  github_id: string;
  oidc_id: string;
  wechat_id: string;
  telegram_id: string;
  linux_do_id: string;
  setting: string;
  remark: string;
  created_at: number;
  last_login_at: number;
  deleted_at: number | null;
}

export type LoginUser = User & { using_default_password?: boolean };

export interface StatusData {
  setup: boolean;
  system_name: string;
  logo: string;
  footer_html: string;
  quota_per_unit: number;
  display_in_currency: boolean;
  enable_drawing: boolean;
  enable_task: boolean;
  enable_data_export: boolean;
  data_export_default_time: string;
  default_collapse_sidebar: boolean;
  mj_notify_enabled: boolean;
  check_in_enabled: boolean;
  checkin_enabled: boolean;
  chats: unknown;
  chat_link: string;
  chat_link2: string;
  docs_link: string;
  email_verification: boolean;
  turnstile_check: boolean;
  turnstile_site_key: string;
  github_oauth: boolean;
  github_client_id: string;
  oidc_enabled: boolean;
  oidc_client_id: string;
  oidc_authorization_endpoint: string;
  wechat_login: boolean;
  wechat_qrcode: string;
  telegram_oauth: boolean;
  telegram_bot_name: string;
  linuxdo_oauth: boolean;
  linuxdo_client_id: string;
  self_use_mode_enabled: boolean;
  demo_site_enabled: boolean;
  register_enabled: boolean;
  password_login_enabled: boolean;
  password_register_enabled: boolean;
  server_address: string;
  top_up_link: string;
  version: string;
  start_time: number;
}

export interface SetupStatus {
  status: boolean;
  root_init: boolean;
  database_type: 'sqlite' | 'postgres' | string;
}

export interface SetupRequest {
  username: string;
  password: string;
  confirmPassword: string;
  SelfUseModeEnabled: boolean;
  DemoSiteEnabled: boolean;
}

export interface OptionEntry {
  key: string;
  value: string;
}

export interface UserSetting {
  notify_type?: 'email' | 'webhook';
  quota_warning_threshold?: number;
  webhook_url?: string;
  webhook_secret?: string;
  notification_email?: string;
  accept_unset_model_ratio_model?: boolean;
}
