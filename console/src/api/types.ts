/**
 * API types used by the console, taken from the types generated from the control plane's
 * OpenAPI document (`npm run gen:api` → schema.d.ts). Endpoints the document does not
 * describe yet declare their narrow types next to their `api.ts`.
 */
import type { components } from './schema';

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

type Schemas = components['schemas'];

/** A user as the console sees it (deleted_at non-null: soft-deleted). */
export type User = Schemas['UserView'];
/** The signed-in user plus the default-password flag. */
export type LoginUser = Schemas['LoginView'];
/** Public configuration from GET /api/status. */
export type StatusData = Schemas['StatusView'];
export type SetupStatus = Schemas['SetupStatus'];
export type SetupRequest = Schemas['SetupRequest'];
export type OptionEntry = Schemas['OptionEntry'];
export type CreateUserRequest = Schemas['CreateUser'];
export type UpdateUserRequest = Schemas['UpdateUser'];
export type ManageResult = Schemas['ManageResult'];
export type RegisterRequest = Schemas['RegisterRequest'];
export type SelfUpdateRequest = Schemas['SelfUpdate'];
export type ResetRequest = Schemas['ResetRequest'];

/** The user's notification and pricing preferences (the `setting` JSON string's content). */
export type UserSetting = Schemas['UserSetting'];
export type CheckInStatus = Schemas['CheckInStatus'];
export type CheckInResult = Schemas['CheckInResult'];
export type AffTransferRequest = Schemas['AffTransferRequest'];
