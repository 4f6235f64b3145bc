import type { TrafficSource } from '@tapline/shared';
import ms from 'ms';
import { hashPassword } from '../auth/passwords.js';
import { createTokenService, listTokens, revokeToken } from '../auth/tokens.js';
import { createUser, findUserByEmail } from '../auth/users.js';
import type { Db } from '../db/open.js';
import type { Clock } from '../clock.js';
import { createSourceFinder } from '../traffic-sources/repo.js';
import { readFirstStartToken } from '../bootstrap.js';
import { ExitError } from '../exit-error.js';
import { schemas } from '../http/schemas.js';
import { schemaOnFirstUse } from '../zod-on-first-use.js';

/** Refuses a password the API would refuse too (exit 2): one rule, in the shared schema. */
export async function checkNewPassword(password: string): Promise<string> {
  const checked = (await schemas()).NewPassword.safeParse(password);
  if (!checked.success) throw new ExitError(checked.error.issues[0]?.message ?? 'the password is not allowed', 2);
  return checked.data;
}

const emailAddress = schemaOnFirstUse((z) => z.email({ message: 'give a valid email address' }));

export async function addUser(
  db: Db,
  clock: Clock,
  input: { email: string; name?: string | undefined; password?: string | undefined },
): Promise<string> {
  const email = (await emailAddress()).safeParse(input.email.trim());
  if (!email.success) throw new ExitError(`"${input.email}" is not a valid email address`, 2);
  if (await findUserByEmail(db, email.data)) throw new ExitError(`a user with email ${email.data} already exists`);
  const passwordHash = input.password === undefined ? null : await hashPassword(await checkNewPassword(input.password));
  const user = await createUser(db, clock, { email: email.data, name: input.name, passwordHash });
  return user.id;
}

/** `30d`, `12h`, `90m` or `never`. */
export function parseExpiry(text: string, clock: Clock): Date | null {
  if (text === 'never') return null;
  // eslint-disable-next-line @typescript-eslint/consistent-type-assertions -- ms reads any text (its types list only the forms it knows); what it cannot read is refused below
  const duration = ms(text as ms.StringValue);
  if (typeof duration !== 'number' || !Number.isFinite(duration) || duration <= 0) {
    throw new ExitError(`--expires takes a duration such as 30d, 12h or 90m, or "never" (got "${text}")`, 2);
  }
  return new Date(clock.now().getTime() + duration);
}

export async function createToken(
  db: Db,
  clock: Clock,
  input: { email: string; expires: string; scope: string; source?: string | undefined },
): Promise<string> {
  const { contract, Scope } = await schemas();
  const scope = Scope.safeParse(input.scope);
  if (!scope.success) throw new ExitError(`--scope takes full, read or ingest (got "${input.scope}")`, 2);
  const expiresAt = parseExpiry(input.expires, clock);
  const user = await findUserByEmail(db, input.email);
  if (!user) throw new ExitError(`no user with email ${input.email}; add one with: taplined user add ${input.email}`);
  let sourceId: string | null = null;
  if (input.source !== undefined) {
    const id = contract.updateTrafficSource.params.shape.trafficSourceId.safeParse(input.source);
    if (!id.success) throw new ExitError('--source takes a traffic source id (a UUID)', 2);
    const source: TrafficSource | undefined = await createSourceFinder(db)(id.data);
    if (!source || source.userId !== user.id)
      throw new ExitError(`${input.email} owns no traffic source ${input.source}`);
    sourceId = source.id;
  }
  const issued = await createTokenService(db, clock).issue({ userId: user.id, scope: scope.data, sourceId, expiresAt });
  return issued.token;
}

/** Columns padded to their widest cell, two spaces apart, the first row the header. */
export function formatTable(table: readonly (readonly string[])[]): string {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export async function tokenTable(db: Db, email?: string): Promise<string> {
  const [rows, first] = await Promise.all([listTokens(db, email), readFirstStartToken(db)]);
  const note = (id: string) => (id === first?.tokenId ? `first-start token (written to ${first.writtenTo})` : '-');
  return formatTable([
    ['ID', 'EMAIL', 'SCOPE', 'SOURCE', 'CREATED', 'EXPIRES', 'REVOKED', 'NOTE'],
    ...rows.map((r) => [
      r.id,
      r.email,
      r.scope,
      r.source_id ?? '-',
      r.created_at,
      r.expires_at ?? 'never',
      r.revoked_at ?? '-',
      note(r.id),
    ]),
  ]);
}

export async function revoke(db: Db, clock: Clock, tokenId: string): Promise<void> {
  if (!(await revokeToken(db, clock, tokenId)))
    throw new ExitError(`no token with id ${tokenId}; see: taplined token list`);
}
