import { Component, type ReactNode } from 'react';

export interface ViewBoundaryProps {
  /** What the boundary shows; a new key (another view, another entry) tries again. */
  readonly resetKey: string;
  readonly children: ReactNode;
}

interface State {
  readonly failed?: { readonly key: string; readonly message: string };
}

/**
 * A view whose code cannot be loaded (its chunk gone after the daemon was upgraded, a dropped
 * connection) or that throws while drawing: its place says so, with a reload, and the rest of the
 * page (header, source picker, other views) stays. Without it React unmounts the whole page.
 */
export class ViewBoundary extends Component<ViewBoundaryProps, State> {
  override state: State = {};

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { failed: { key: '', message: error instanceof Error ? error.message : String(error) } };
  }

  static getDerivedStateFromProps(props: ViewBoundaryProps, state: State): Partial<State> | null {
    if (!state.failed) return null;
    // The key the failure happened under is learned on the render after it; a later key clears it.
    if (state.failed.key === '') return { failed: { ...state.failed, key: props.resetKey } };
    return state.failed.key === props.resetKey ? null : { failed: undefined };
  }

  override render(): ReactNode {
    const { failed } = this.state;
    if (!failed) return this.props.children;
    return (
      <p className="error banner" role="alert">
        This view could not be loaded ({failed.message}).{' '}
        <button type="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </p>
    );
  }
}
