// The webhook types and their URL rules, without the schemas of webhook.ts: what a daemon's start
// needs of them (docs/decisions.md §20.23).

export const WEBHOOK_TYPES = ['discord', 'slack', 'http'] as const;
export const WEBHOOK_LEVELS = ['fatal', 'warning', 'info'] as const;

/** What each type's URL must be; the daemon checks them (webhooks/targets.ts), OpenAPI shows them. */
export const WEBHOOK_URL_RULES: Readonly<
  Record<(typeof WEBHOOK_TYPES)[number], { hosts: readonly string[] | null; path: RegExp | null; example: string }>
> = {
  discord: {
    hosts: ['discord.com', 'discordapp.com', 'ptb.discord.com', 'canary.discord.com'],
    path: /^\/api(?:\/v\d+)?\/webhooks\/\d+\/[\w-]+\/?$/,
    example: 'https://discord.com/api/webhooks/<id>/<token>',
  },
  slack: {
    hosts: ['hooks.slack.com'],
    path: /^\/(?:services|workflows|triggers)\/[\w/-]+$/,
    example: 'https://hooks.slack.com/services/T000/B000/XXXX',
  },
  http: { hosts: null, path: null, example: 'https://example.com/tapline-hook' },
};
