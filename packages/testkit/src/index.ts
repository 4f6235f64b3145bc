export { composeBody } from './compose.js';
export { type Balancer, startBalancer } from './balancer.js';
export { type HoldPoint, holdPoint } from './hold.js';
export { REALISTIC_SIZE, realisticRecord } from './realistic/record.js';
export { type Cluster, startCluster } from './postgres/cluster.js';
export { promSample, promSeries } from './prometheus.js';
export { exactPercentile, expectNumbersOf, type Measured, PERCENTILES, statsViews } from './route-numbers.js';
export { until, UNTIL_TIMEOUT_MS } from './until.js';
