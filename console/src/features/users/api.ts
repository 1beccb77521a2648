import { api } from '../../app/api';
import type { CreateUserRequest, ManageResult, Page, UpdateUserRequest, User } from '../../api/types';
import type { UserAction } from '../../shared/constants';

export interface UserQuery {
  keyword: string;
  group: string;
  p: number;
  pageSize: number;
}

export type NewUser = CreateUserRequest;
export type UserUpdate = UpdateUserRequest;

export const usersApi = api.injectEndpoints({
  endpoints: (b) => ({
    listUsers: b.query<Page<User>, UserQuery>({
      query: ({ keyword, group, p, pageSize }) =>
        keyword || group
          ? { url: 'user/search', params: { keyword, group, p, page_size: pageSize } }
          : { url: 'user/', params: { p, page_size: pageSize } },
      providesTags: (res) => [
        { type: 'User', id: 'LIST' },
        ...(res?.items ?? []).map((u) => ({ type: 'User' as const, id: u.id })),
      ],
    }),
    getUser: b.query<User, number>({
      query: (id) => `user/${id}`,
      providesTags: (_r, _e, id) => [{ type: 'User', id }],
    }),
    createUser: b.mutation<unknown, NewUser>({
      query: (body) => ({ url: 'user/', method: 'POST', body }),
      invalidatesTags: [{ type: 'User', id: 'LIST' }],
    }),
    updateUser: b.mutation<unknown, UserUpdate>({
      query: (body) => ({ url: 'user/', method: 'PUT', body }),
      invalidatesTags: (_r, _e, u) => [
        { type: 'User', id: u.id },
        { type: 'User', id: 'LIST' },
      ],
    }),
    manageUser: b.mutation<ManageResult, { id: number; action: UserAction }>({
      query: (body) => ({ url: 'user/manage', method: 'POST', body }),
      invalidatesTags: (_r, _e, a) => [
        { type: 'User', id: a.id },
        { type: 'User', id: 'LIST' },
      ],
    }),
    getGroups: b.query<string[], void>({
      query: () => 'group/',
      providesTags: ['Group'],
    }),
  }),
});

export const {
  useListUsersQuery,
  useGetUserQuery,
  useCreateUserMutation,
  useUpdateUserMutation,
  useManageUserMutation,
  useGetGroupsQuery,
} = usersApi;
