import { contract, followTraffic, toCurl, tryParseFilter, type TaplineClient } from '@tapline/shared';
import { buildReplay } from '../replay/request.js';
import { sendReplay } from '../replay/send.js';
import type { UiApi } from './api.js';
import type { CopiedTo } from './clipboard.js';

const MAX_LIMIT = 1000;

/** The UI's view of the daemon, over the typed client and the shared stream follower. */
export function createUiApi(client: TaplineClient, copy: (text: string) => Promise<CopiedTo>): UiApi {
  return {
    async listSources() {
      return (await client.call(contract.listTrafficSources, { query: { limit: MAX_LIMIT } })).data;
    },
    listTraffic(sourceId, o) {
      const query = {
        limit: o.limit,
        ...(o.page ? { page: o.page } : {}),
        ...(o.before ? { endDate: o.before } : {}),
        ...(o.q ? { q: o.q } : {}),
      };
      return client.call(contract.listTraffic, { params: { trafficSourceId: sourceId }, query });
    },
    getTraffic: (sourceId, id) => client.call(contract.getTraffic, { params: { trafficSourceId: sourceId, id } }),
    async follow(sourceId, o) {
      await followTraffic(client, sourceId, {
        ...(o.q ? { q: o.q } : {}),
        ...(o.after ? { after: o.after.id } : {}),
        signal: o.signal,
        onEntry: o.onEntry,
        onStatus: (s) => {
          if (s.state !== 'stopped') o.onStatus(s);
        },
      });
    },
    listCoreLogs(sourceId, page, limit) {
      return client.call(contract.listCoreLogs, { params: { trafficSourceId: sourceId }, query: { page, limit } });
    },
    async listWebhooks(sourceId) {
      return (
        await client.call(contract.listWebhooks, { params: { trafficSourceId: sourceId }, query: { limit: MAX_LIMIT } })
      ).data;
    },
    routeStats: (sourceId, since) =>
      client.call(contract.getStats, { params: { trafficSourceId: sourceId }, query: { since, series: '1' } }),
    async listAlertRules(sourceId) {
      return (
        await client.call(contract.listAlertRules, {
          params: { trafficSourceId: sourceId },
          query: { limit: MAX_LIMIT },
        })
      ).data;
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
    // async: a refusal of buildReplay must reject, not throw into the key handler that asked.
    replay: async (record, signal) => sendReplay(buildReplay(record, {}), signal),
  };
}
