import { z } from 'zod';
import { parseRule } from '../routes/rules.js';
import { uuidField } from './common.js';

/** A rule of a source (docs/statistics.md "Rules"): a template that paths matching it are filed under. */
export const RouteRule = z.object({
  id: z.uuid(),
  template: z.string(),
  /** Stored entries filed under the rule's template now (the move of older ones runs in the background). */
  entries: z.number().int(),
  createdAt: z.string(),
});
export type RouteRule = z.infer<typeof RouteRule>;

/** Any spelling a client sends (`:slug`, `<slug>`); stored in OpenAPI's (`{slug}`). */
export const CreateRouteRule = z.object({
  template: z.string().transform((raw, ctx) => {
    const parsed = parseRule(raw);
    if ('template' in parsed) return parsed.template;
    ctx.addIssue({ code: 'custom', message: parsed.problem });
    return z.NEVER;
  }),
});
export type CreateRouteRule = z.input<typeof CreateRouteRule>;

export const RouteRuleParams = z.object({ trafficSourceId: uuidField('trafficSourceId'), ruleId: uuidField('ruleId') });

/** Sibling constants under one parent that a rule could fold into one template (`tapline routes suggest`). */
export const RouteSuggestion = z.object({
  /** The rule that would fold them: accept it with `POST /routes/:id/rules`. */
  template: z.string(),
  /** The literal part before the varying segment, `/products/`. */
  parent: z.string(),
  /** Distinct constants seen in the varying segment. */
  values: z.number().int(),
  /** Stored entries per value: the fewest and the most. */
  minSeen: z.number().int(),
  maxSeen: z.number().int(),
  /** Stored entries the rule would move. */
  entries: z.number().int(),
  /** A few of the values, most seen first. */
  examples: z.array(z.string()),
});
export type RouteSuggestion = z.infer<typeof RouteSuggestion>;

export const RouteSuggestions = z.object({ data: z.array(RouteSuggestion) });
export type RouteSuggestions = z.infer<typeof RouteSuggestions>;
