// The compose floors: a server that reads a JSON body and answers it back as a stored record,
// with an id and a timestamp, the size of what taplined answers (201). `node echo.mjs http` is
// bare node:http; `node echo.mjs express` is bare Express 5 with express.json(), the daemon's own
// framework and body parser (from its package). Nothing is validated, stored or redacted: that
// is the work the floors leave out. Prints `listening on <url>`.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const answer = (record) => JSON.stringify({ id: randomUUID(), createdAt: new Date().toISOString(), ...record });

function bareHttp() {
  return createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let record;
      try {
        record = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return res.writeHead(400).end();
      }
      const body = answer(record);
      res
        .writeHead(201, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
        })
        .end(body);
    });
  });
}

function bareExpress() {
  const require = createRequire(join(fileURLToPath(import.meta.url), '../../../packages/daemon/package.json'));
  const express = require('express');
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/http-traffic-record/:trafficSourceId', (req, res) => {
    res.status(201).type('application/json').send(answer(req.body));
  });
  return createServer(app);
}

const server = process.argv[2] === 'express' ? bareExpress() : bareHttp();
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
