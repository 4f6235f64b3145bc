import { z } from 'zod';
import { Timestamp, uuidField, wellFormed } from './common.js';

export const TrafficSource = z.object({
  id: z.uuid(),
  name: z.string(),
  trafficDomain: z.string(),
  userId: z.uuid(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type TrafficSource = z.infer<typeof TrafficSource>;

const SourceName = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(100, 'name must be at most 100 characters')
  .refine(...wellFormed('name'));

/** A host name with an optional port, no scheme or path: what a browser shows as the site. */
const TrafficDomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^(?=.{1,253}(:|$))[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*(?::\d{1,5})?$/,
    'trafficDomain must be a domain name such as shop.example.com (no scheme or path)',
  );

export const CreateTrafficSource = z.object({ name: SourceName, trafficDomain: TrafficDomain });
export const UpdateTrafficSource = z
  .object({ name: SourceName.optional(), trafficDomain: TrafficDomain.optional() })
  .refine((v) => v.name !== undefined || v.trafficDomain !== undefined, {
    message: 'give name or trafficDomain',
  })
  .meta({ minProperties: 1, anyOf: [{ required: ['name'] }, { required: ['trafficDomain'] }] });

export const TrafficSourceParams = z.object({ trafficSourceId: uuidField('trafficSourceId') });
