import type { Command } from 'commander';
import { example } from '../help.js';
import type { Register } from '../register.js';
import { addTrafficList } from './traffic-list.js';
import { addTrafficDiff } from './traffic-diff.js';
import { addTrafficExport } from './traffic-export.js';
import { addTrafficReplay } from './traffic-replay.js';
import { addTrafficShow } from './traffic-show.js';

/** The `traffic` group; other modules (tail) may add to it, so it is created once and shared. */
export function trafficGroup(program: Command): Command {
  const found = program.commands.find((c) => c.name() === 'traffic');
  if (found) return found;
  const traffic = program.command('traffic').description('read the HTTP traffic of a source');
  example(traffic, 'tapline traffic list shop --status 5xx --since 15m');
  return traffic;
}

export const registerTraffic: Register = (program, context) => {
  const traffic = trafficGroup(program);
  addTrafficList(traffic, context);
  addTrafficShow(traffic, context);
  addTrafficReplay(traffic, context);
  addTrafficDiff(traffic, context);
  addTrafficExport(traffic, context);
};
