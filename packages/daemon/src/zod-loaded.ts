/** What `zodOnFirstUse` loads: zod, in the daemon's bundle a module initialised on first use. */
export { z } from 'zod';
