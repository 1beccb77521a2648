/** API types of the tokens screen, from the generated OpenAPI schema. */
import type { components } from '../../api/schema';

type Schemas = components['schemas'];

/** A token as its owner sees it: its key is masked (`sk-abcd**********wxyz`), except in the creation answer. */
export type Token = Schemas['TokenView'];
/** The whole `sk-` key of a token (POST /api/token/{id}/key). */
export type TokenKey = Schemas['TokenKey'];
/** A token's settings as sent on create and update. */
export type TokenInput = Schemas['TokenInput'];
/** A group the user may pick for a token: description and ratio. */
export type GroupInfo = Schemas['GroupInfo'];
/** The user's selectable groups by name (GET /api/user/self/groups). */
export type UserGroups = Record<string, GroupInfo>;

export interface TokenQuery {
  keyword: string;
  p: number;
  pageSize: number;
}
