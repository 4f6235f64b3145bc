'use strict';
// The OpenTelemetry Node SDK as support/otel-app.cjs and support/otel-timed-app.cjs run it,
// configured only through the standard OTEL_* variables the way docs/opentelemetry.md tells users
// to. EXPORTER picks the OTLP/HTTP exporter package: `json` or `proto`.
const { diag, DiagConsoleLogger, DiagLogLevel } = require('@opentelemetry/api');
const { NodeSDK } = require('@opentelemetry/sdk-node');
const { HttpInstrumentation } = require('@opentelemetry/instrumentation-http');
const { ExpressInstrumentation } = require('@opentelemetry/instrumentation-express');

/** Starts the SDK; call it before requiring Express, whose `require` the instrumentation patches. */
function startSdk() {
  const { OTLPTraceExporter } =
    process.env.EXPORTER === 'proto'
      ? require('@opentelemetry/exporter-trace-otlp-proto')
      : require('@opentelemetry/exporter-trace-otlp-http');
  // The SDK reports a failed export only through its diagnostic logger: on stderr, the test sees why.
  diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.ERROR);
  const sdk = new NodeSDK({
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [new HttpInstrumentation(), new ExpressInstrumentation()],
  });
  sdk.start();
  return sdk;
}

/** Serves `app` on a free port, printing `listening PORT`; SIGTERM closes it and flushes the SDK. */
function serve(app, sdk) {
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
}

module.exports = { startSdk, serve };
