// Preloaded (`node -r`) by bench/ab-start-cpu.mjs into the process it measures: the process's own
// CPU (process.cpuUsage, to the microsecond) and time since its start when its first server
// listens, when its first request arrives and when that request is answered, written as one JSON
// line to fd 3; the process ends after the answer. Nothing else of the process is changed.
'use strict';
const { writeSync } = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const { performance } = require('node:perf_hooks');

const at = () => {
  const { user, system } = process.cpuUsage();
  return { ms: performance.now(), cpu: (user + system) / 1000 };
};
const seen = {};
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => (seen.listening ??= at()));
  return listen.apply(this, args);
};
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event === 'request' && !seen.request) {
    seen.request = at();
    response.once('finish', () => {
      seen.answered = at();
      writeSync(3, `${JSON.stringify(seen)}\n`);
      setImmediate(() => process.exit(0));
    });
  }
  return Reflect.apply(emit, this, arguments);
};
