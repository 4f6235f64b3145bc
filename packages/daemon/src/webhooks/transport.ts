// node:https (which loads tls) and node:dns (which reads the resolver's configuration) for
// webhooks/send.ts, which loads this module by its first delivery rather than with the daemon:
// they were 3 to 5 ms of every start's CPU, for webhooks most daemons never send (issue 30's cold
// start, decisions §20.17).
export { default as https } from 'node:https';
export { lookup } from 'node:dns';
