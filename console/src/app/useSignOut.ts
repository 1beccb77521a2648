import { useCallback } from 'react';
import { useNavigate } from 'react-router';
import { useAppDispatch } from './hooks';
import { signedOut } from './sessionSlice';

/** Forgets the user and goes to /login (the guard of the current page agrees: see `ended`). */
export function useSignOut(): () => Promise<void> {
  const navigate = useNavigate();
  const dispatch = useAppDispatch();
  return useCallback(async () => {
    dispatch(signedOut());
    await navigate('/login', { replace: true });
  }, [dispatch, navigate]);
}
