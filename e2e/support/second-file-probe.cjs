// Preloaded (`node -r`) into a daemon by e2e/second-file.test.ts: after each answer it writes one
// JSON line to fd 3, the request's path and status and what the bundle's second file
// (taplined-schemas.cjs, decisions §20.27) has been through in this process: 'not read', or
// compiled with 'no cache', 'cache accepted' or 'cache refused' (from vm.Script, which the bundle's
// code-cache.ts reads off node:vm at each compile). Nothing else changes.
'use strict';
const { writeSync } = require('node:fs');
const http = require('node:http');
const vm = require('node:vm');

let secondFile = 'not read';
const Script = vm.Script;
vm.Script = class extends Script {
  constructor(source, options) {
    super(source, options);
    if (typeof options?.filename === 'string' && options.filename.endsWith('taplined-schemas.cjs')) {
      if (!options.cachedData) secondFile = 'no cache';
      else secondFile = this.cachedDataRejected ? 'cache refused' : 'cache accepted';
    }
  }
};

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event === 'request')
    response.once('finish', () => {
      writeSync(3, `${JSON.stringify({ path: request.url, status: response.statusCode, secondFile })}\n`);
    });
  return Reflect.apply(emit, this, arguments);
};
