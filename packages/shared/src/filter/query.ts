import { z } from 'zod';
import { FILTER_LIMITS } from './ast.js';
// parse.js imports the method and level lists from schemas/http-traffic.js, which imports this
// file: keep module-level code here to ast.js and zod, and call into parse.js only when parsing.
import { FilterSyntaxError, parseFilter } from './parse.js';

/**
 * The `q=` query parameter: a filter expression in, its syntax tree out. A blank `q` is no filter.
 * A mistake is a validation issue on `q` whose message ends with the column, so the API's 400
 * reads `q: unknown field "stauts"; fields are ... at column 1`.
 */
export const FilterQuery = z
  .string({ message: 'q must be a filter expression such as status>=500' })
  .max(FILTER_LIMITS.length, `q must be at most ${FILTER_LIMITS.length} characters`)
  // Nothing stored holds U+0000 (schemas/common.ts), and PostgreSQL refuses it as a parameter.
  .refine((text) => !text.includes('\u0000'), 'q must not contain U+0000 (NUL)')
  .transform((text, ctx) => {
    if (!text.trim()) return undefined;
    try {
      return parseFilter(text);
    } catch (error) {
      if (!(error instanceof FilterSyntaxError)) throw error;
      ctx.addIssue({ code: 'custom', message: error.message, params: { column: error.column } });
      return z.NEVER;
    }
  });
