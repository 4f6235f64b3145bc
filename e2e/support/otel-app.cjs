'use strict';
// A real Express app instrumented by the real OpenTelemetry Node SDK, configured only through the
// standard OTEL_* variables the way docs/opentelemetry.md tells users to. CommonJS, because the
// Express instrumentation patches `require` (an ES module app needs the SDK's loader hook).
// EXPORTER picks the OTLP/HTTP exporter package: `json` or `proto`.
const { diag, DiagConsoleLogger, DiagLogLevel } = require('@opentelemetry/api');
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');
const { OTLPTraceExporter } =
  process.env.EXPORTER === 'proto' ? require('@opentelemetry/exporter-trace-otlp-proto') : require('@opentelemetry/exporter-trace-otlp-http');

// The SDK reports a failed export only through its diagnostic logger: on stderr, the test sees why.
diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.ERROR);
const sdk = new NodeSDK({ traceExporter: new OTLPTraceExporter(), instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()] });
sdk.start();

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

const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close();
  sdk.shutdown().then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`shutdown failed: ${error}\n`);
      process.exit(1);
    },
  );
});
