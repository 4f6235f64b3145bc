// The classes of prom-client the daemon uses, each from its own file: the package's index also
// loads the Pushgateway (and with it https and tls), cluster aggregation and the default metrics,
// none of which the daemon uses, and that was 3 to 5 ms of every start's CPU (issue 30's cold
// start). Same classes, same registry (lib/metric.js registers into lib/registry.js either way).
export { default as Counter } from 'prom-client/lib/counter.js';
export { default as Gauge } from 'prom-client/lib/gauge.js';
export { default as Histogram } from 'prom-client/lib/histogram.js';
export { default as Registry } from 'prom-client/lib/registry.js';
