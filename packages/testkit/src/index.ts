export { composeBody } from './compose.js';
