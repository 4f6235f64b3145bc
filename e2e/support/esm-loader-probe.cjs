// Preloaded (`node -r`) into a daemon by e2e/start-loads-no-esm-loader.test.ts: after each answer it
// writes one JSON line to fd 3, the request's path and whether Node's ES-module loader has run in
// this process (its module jobs' module, which only an ES module's load or an import() needs). Nothing
// else changes.
'use strict';
const { writeSync } = require('node:fs');
const http = require('node:http');

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event === 'request')
    response.once('finish', () => {
      const esmLoader = process.moduleLoadList.includes('NativeModule internal/modules/esm/module_job');
      writeSync(3, `${JSON.stringify({ path: request.url, esmLoader })}\n`);
    });
  return Reflect.apply(emit, this, arguments);
};
