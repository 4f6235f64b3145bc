import { contract, followTraffic, toCurl, tryParseFilter, type TaplineClient } from '@tapline/shared';
import type { StreamStatus, UiApi } from './api.js';

const MAX_LIMIT = 1000;

/** The UI's view of the daemon, over the typed client and the shared stream follower. */
export function createUiApi(client: TaplineClient, copy: (text: string) => Promise<void>): UiApi {
  return {
    async listSources() {
      return (await client.call(contract.listTrafficSources, { query: { limit: MAX_LIMIT } })).data;
    },
    async listTraffic(sourceId, o) {
      const query = { limit: o.limit, ...(o.page ? { page: o.page } : {}), ...(o.before ? { endDate: o.before } : {}), ...(o.q ? { q: o.q } : {}) };
      const page = await client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query });
      return { data: page.data, total: page.meta.total };
    },
    getTraffic: (sourceId, id) => client.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id } }),
    async follow(sourceId, o) {
      await followTraffic(client, sourceId, {
        ...(o.q ? { q: o.q } : {}),
        ...(o.after ? { after: o.after.id } : {}),
        signal: o.signal,
        onEntry: o.onEntry,
        onStatus: (s) => {
          let status: StreamStatus | null = null;
          if (s.state === 'connecting') status = { state: 'connecting' };
          else if (s.state === 'live') status = { state: 'live' };
          else if (s.state === 'reconnecting') status = { state: 'reconnecting', attempt: s.attempt, reason: s.reason };
          if (status) o.onStatus(status);
        },
      });
    },
    async listCoreLogs(sourceId, page, limit) {
      const answer = await client.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId }, query: { page, limit } });
      return { data: answer.data, total: answer.meta.total };
    },
    async listWebhooks(sourceId) {
      return (await client.call(contract.listWebhooks, { params: { trafficSourceId: sourceId }, query: { limit: MAX_LIMIT } })).data;
    },
    async deleteWebhook(id) {
      await client.call(contract.deleteWebhook, { params: { webhookId: id } });
    },
    checkFilter(q) {
      const parsed = tryParseFilter(q);
      return parsed.ok ? { ok: true } : { ok: false, message: parsed.error.reason, column: parsed.error.column };
    },
    curlFor: (record) => toCurl(record),
    copy,
  };
}
