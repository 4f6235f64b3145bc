'use strict';
// The plan of support/timed-app.ts served by a real Express app instrumented by the real
// OpenTelemetry Node SDK (support/otel-sdk.cjs). CommonJS, because the Express instrumentation
// patches `require`. Each request waits at least `x-wait-ms` milliseconds and answers `x-status`.
const { setTimeout: sleep } = require('node:timers/promises');
const { serve, startSdk } = require('./otel-sdk.cjs');

const sdk = startSdk();
const express = require('express');
const app = express();
const answer = async (req, res) => {
  const started = performance.now();
  const waitMs = Number(req.headers['x-wait-ms'] ?? 0);
  // A timer may fire a fraction of a millisecond early; the plan promises at least the wait.
  while (performance.now() - started < waitMs) await sleep(waitMs - (performance.now() - started));
  const status = Number(req.headers['x-status'] ?? 200);
  if (status === 204) res.status(204).end();
  else res.status(status).json({ path: req.url, status });
};
app.get('/users/:id', answer);
app.delete('/users/:id', answer);
app.get('/orders/:orderId/items/:itemId', answer);

serve(app, sdk);
