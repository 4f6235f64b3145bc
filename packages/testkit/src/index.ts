export { composeBody } from './compose.js';
export { REALISTIC_SIZE, realisticRecord } from './realistic/record.js';
