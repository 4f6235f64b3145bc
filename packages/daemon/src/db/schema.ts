import type { AlertTables } from '../alerts/table.js';
import type { AuthTables } from '../auth/table.js';
import type { CoreLogTables } from '../core-logs/table.js';
import type { HttpTrafficTables } from '../http-traffic/table.js';
import type { RouteRuleTables } from '../route-stats/rules-table.js';
import type { RouteStatsTables } from '../route-stats/table.js';
import type { TrafficSourceTables } from '../traffic-sources/table.js';
import type { WebhookTables } from '../webhooks/table.js';

/**
 * The database as Kysely sees it, assembled from each capability's own table file, as Kysely's
 * example does. Column names are snake_case there and never reach the wire: each capability's
 * repository maps rows to wire objects in one place.
 */
export interface DB
  extends
    AuthTables,
    TrafficSourceTables,
    HttpTrafficTables,
    CoreLogTables,
    WebhookTables,
    RouteStatsTables,
    RouteRuleTables,
    AlertTables {}
