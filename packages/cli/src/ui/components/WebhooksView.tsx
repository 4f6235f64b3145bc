import type { Webhook } from '@tapline/shared';
import { Box, Text } from 'ink';
import { useState } from 'react';
import { describeError, type UiApi } from '../api.js';
import { fit, type Tone as Color } from '../entry-columns.js';
import { useAsync } from '../hooks/useAsync.js';
import { useKeymap } from '../hooks/useKeymap.js';
import { useSelection } from '../hooks/useSelection.js';
import { ConfirmPrompt } from './ConfirmPrompt.js';
import type { Tone } from './StatusLine.js';
import { usePaint } from '../palette.js';

export interface WebhooksViewProps {
  readonly api: UiApi;
  readonly sourceId: string;
  readonly width: number;
  readonly rows: number;
  readonly active: boolean;
  readonly onBack: () => void;
  readonly onNotice: (text: string, tone?: Tone) => void;
  readonly onQuit: () => void;
}

const LEVEL_COLORS: Record<Webhook['level'], Color> = { fatal: 'red', warning: 'yellow', info: 'green' };

/** The source's webhooks; `d` asks, and `y` deletes. */
export function WebhooksView({ api, sourceId, width, rows, active, onBack, onNotice, onQuit }: WebhooksViewProps) {
  const paint = usePaint();
  const hooks = useAsync(() => api.listWebhooks(sourceId), [api, sourceId]);
  const [confirming, setConfirming] = useState<Webhook | null>(null);
  const data = hooks.data ?? [];
  const listRows = Math.max(1, rows - 2);
  const { selected, top, keys } = useSelection(data.length, listRows);

  const remove = (hook: Webhook) => {
    setConfirming(null);
    api.deleteWebhook(hook.id).then(
      () => {
        onNotice(`deleted the ${hook.type} webhook ${hook.value}`);
        hooks.reload();
      },
      (e: unknown) => onNotice(`could not delete the webhook: ${describeError(e)}`, 'error'),
    );
  };

  useKeymap(
    {
      ...keys,
      d: () => {
        const hook = data[selected];
        if (hook) setConfirming(hook);
      },
      escape: onBack,
      backspace: onBack,
      q: onQuit,
    },
    active && !confirming,
  );
  return (
    <Box flexDirection="column" height={rows}>
      <Text bold>
        Webhooks <Text dimColor>{hooks.loading ? 'loading…' : `${data.length}`}</Text>
      </Text>
      {hooks.error ? <Text color={paint('red')}>Could not load webhooks: {hooks.error}</Text> : null}
      {!hooks.loading && !hooks.error && data.length === 0 ? (
        <Text dimColor>No webhooks. Add one with `tapline webhooks add`.</Text>
      ) : null}
      {data.slice(top, top + listRows).map((hook, i) => (
        <Text key={hook.id} inverse={top + i === selected} wrap="truncate">
          {hook.type.padEnd(8)} <Text color={paint(LEVEL_COLORS[hook.level])}>{hook.level.padEnd(8)}</Text>{' '}
          {fit(hook.value, Math.max(10, width - 18))}
        </Text>
      ))}
      {confirming ? (
        <ConfirmPrompt
          question={`Delete the ${confirming.type} webhook ${confirming.value}?`}
          onAnswer={(yes) => (yes ? remove(confirming) : setConfirming(null))}
        />
      ) : null}
    </Box>
  );
}
