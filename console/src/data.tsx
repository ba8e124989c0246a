/** Loading, error and empty states shared by every page. */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { MessageBar, MessageBarBody, MessageBarTitle, Spinner, Body1 } from '@fluentui/react-components';
import { GraphQLRequestError } from './api';

export type Loaded<T> = { state: 'loading' } | { state: 'error'; error: Error } | { state: 'done'; value: T };

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): [Loaded<T>, () => void] {
  const [result, setResult] = useState<Loaded<T>>({ state: 'loading' });
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    setResult({ state: 'loading' });
    load().then(
      (value) => live && setResult({ state: 'done', value }),
      (error: unknown) =>
        live && setResult({ state: 'error', error: error instanceof Error ? error : new Error('Failed') }),
    );
    return () => {
      live = false;
    };
  }, [...deps, round]);
  return [result, useCallback(() => setRound((r) => r + 1), [])];
}

/**
 * A change a page makes: `act` runs it, keeps its error (or the notice given for its success) and then
 * runs `after` (clear a form, load the page again).
 */
export function useAction(after: () => void) {
  const [error, setError] = useState<Error | null>(null);
  const [notice, setNotice] = useState('');
  const act = async (work: () => Promise<unknown>, done = '') => {
    setError(null);
    try {
      await work();
      setNotice(done);
      after();
    } catch (err) {
      setError(err instanceof Error ? err : new Error('Failed'));
    }
  };
  return { act, error, notice, setNotice };
}

export function ErrorBar({ error }: { error: Error }) {
  const code = error instanceof GraphQLRequestError ? error.code : undefined;
  return (
    <MessageBar intent="error" role="alert">
      <MessageBarBody>
        <MessageBarTitle>Something went wrong</MessageBarTitle>
        {error.message}
        {code ? ` (${code})` : ''}
      </MessageBarBody>
    </MessageBar>
  );
}

export function Show<T>({
  loaded,
  label,
  empty,
  isEmpty,
  children,
}: {
  loaded: Loaded<T>;
  label: string;
  empty?: string;
  isEmpty?: (v: T) => boolean;
  children: (v: T) => ReactNode;
}) {
  if (loaded.state === 'loading') return <Spinner size="small" label={`Loading ${label}…`} />;
  if (loaded.state === 'error') return <ErrorBar error={loaded.error} />;
  if (empty && isEmpty?.(loaded.value)) return <Body1 role="status">{empty}</Body1>;
  return <>{children(loaded.value)}</>;
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
