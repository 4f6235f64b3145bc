// A real Express app recording through the built @tapline/node (packages/node/dist, the file a
// user's `npm install` gets), configured by APP_DAEMON_URL, APP_TOKEN and APP_SOURCE. Paths under
// /_ are the test's own controls and are not recorded.
import express from 'express';
import { tapline } from '../../packages/node/dist/index.js';

const tap = tapline({
  url: process.env.APP_DAEMON_URL,
  token: process.env.APP_TOKEN ?? '',
  source: process.env.APP_SOURCE ?? '',
  ignore: (req) => (req.url ?? '').startsWith('/_'),
});
const app = express();
app.use(tap);
app.get('/hello/:n', (req, res) => {
  res.json({ hello: req.params.n });
});
app.get('/_stats', (_req, res) => {
  res.json(tap.stats());
});
app.post('/_flush', async (req, res) => {
  res.json({ flushed: await tap.flush(Number(req.query.ms ?? 5000)) });
});

const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
process.on('SIGTERM', () => {
  server.close();
  void tap.close(1000).then(() => process.exit(0));
});
