// The app behind every proxy: answers each request with a realistic record's response (headers
// and JSON body, about 1 KB), as a typical API endpoint does. Reads the answer from the file named
// on the command line ({ headers, body }); prints `app listening on <url>`.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const { headers, body } = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const text = JSON.stringify(body);
const head = { ...headers, 'content-length': Buffer.byteLength(text) };
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, head).end(text));
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () =>
  process.stdout.write(`app listening on http://127.0.0.1:${server.address().port}\n`),
);
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
