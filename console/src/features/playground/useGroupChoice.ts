/** The groups the user may choose (GET /api/user/self/groups, own group first) and the one in use. */
import { useCurrentUser } from '../../app/hooks';
import { useGetSelfGroupsQuery } from '../tokens/api';
import { effectiveGroup, groupChoices, type GroupChoice } from './params';

export interface GroupChoiceState {
  choices: GroupChoice[];
  /** The group the next question goes to ('' until the user's group is known). */
  group: string;
  loading: boolean;
}

export function useGroupChoice(chosen: string): GroupChoiceState {
  const userGroup = useCurrentUser()?.group ?? '';
  const { data, isLoading } = useGetSelfGroupsQuery();
  const choices = groupChoices(data ?? {}, userGroup);
  return { choices, group: effectiveGroup(chosen, choices, userGroup), loading: isLoading };
}
