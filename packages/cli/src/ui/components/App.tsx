import type { TrafficSource } from '@tapline/shared';
import { Box, useApp } from 'ink';
import { useState } from 'react';
import type { UiApi } from '../api.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import type { FeedOptions } from '../hooks/useTrafficStream.js';
import { Footer } from './Footer.js';
import { Session } from './Session.js';
import { SourcePicker } from './SourcePicker.js';

export interface AppProps {
  readonly api: UiApi;
  /** Already resolved; the picker is shown when absent. */
  readonly source?: TrafficSource;
  readonly initialFilter?: string;
  readonly recentFilters?: readonly string[];
  readonly onRecentFilters?: (recent: readonly string[]) => void;
  readonly feedOptions?: FeedOptions;
}

/** `tapline ui`: the source picker, then the session; `q` quits from anywhere but a prompt. */
export function App({ api, source: given, initialFilter, recentFilters, onRecentFilters, feedOptions }: AppProps) {
  const { exit } = useApp();
  const size = useTerminalSize();
  const [source, setSource] = useState<TrafficSource | undefined>(given);
  useKeymap({ q: () => exit() }, !source);

  if (!source) {
    return (
      <Box flexDirection="column" width={size.columns} height={Math.max(4, size.rows - 1)}>
        <SourcePicker api={api} width={size.columns} rows={Math.max(2, size.rows - 2)} onPick={setSource} />
        <Footer screen="picker" width={size.columns} />
      </Box>
    );
  }
  return (
    <Session
      api={api}
      source={source}
      size={size}
      onQuit={() => exit()}
      {...(initialFilter !== undefined ? { initialFilter } : {})}
      {...(recentFilters ? { recentFilters } : {})}
      {...(onRecentFilters ? { onRecentFilters } : {})}
      {...(feedOptions ? { feedOptions } : {})}
    />
  );
}
