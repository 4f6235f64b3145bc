'use strict';
// A real Express app instrumented by the real OpenTelemetry Node SDK (support/otel-sdk.cjs).
// CommonJS, because the Express instrumentation patches `require` (an ES module app needs the SDK's
// loader hook).
const { serve, startSdk } = require('./otel-sdk.cjs');

const sdk = startSdk();
const express = require('express');
const app = express();
app.use(express.json());
app.get('/orders/:id', (req, res) => {
  res.json({ id: req.params.id });
});
app.post('/orders', (req, res) => {
  res.status(201).json({ created: true });
});
app.get('/boom', () => {
  throw new TypeError('order 7 has no customer');
});
// Express 5 answers a thrown error with a 500 by itself; keep its stack off stderr.
// eslint-disable-next-line no-unused-vars -- Express tells an error handler by its four parameters
app.use((error, _req, res, _next) => {
  res.status(500).json({ error: String(error.message) });
});

serve(app, sdk);
