// Preloaded (`node -r`) into a daemon by e2e/start-loads-no-zod.test.ts: after each answer it writes
// one JSON line to fd 3, the request's path and whether zod's module has run in this process (zod
// 4 keeps its global registry on globalThis when its module initialises). Nothing else changes.
'use strict';
const { writeSync } = require('node:fs');
const http = require('node:http');

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event === 'request')
    response.once('finish', () => {
      const line = { path: request.url, zod: '__zod_globalRegistry' in globalThis };
      writeSync(3, `${JSON.stringify(line)}\n`);
    });
  return Reflect.apply(emit, this, arguments);
};
