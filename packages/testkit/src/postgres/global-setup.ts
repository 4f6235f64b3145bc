import { randomBytes } from 'node:crypto';
import { openDatabase } from '@tapline/daemon';
import type { TestProject } from 'vitest/node';
import { type Cluster, startCluster } from './cluster.js';
import { freeList, SCHEMA_FINGERPRINT, type TestServer, withClient } from './server.js';
import { databaseUrl } from './urls.js';

declare module 'vitest' {
  export interface ProvidedContext {
    taplinePostgres: TestServer;
  }
}

/** A database migrated to the newest schema, and its fingerprint. */
async function migratedTemplate(url: string, template: string): Promise<string> {
  await withClient(url, (admin) => admin.query(`create database ${template}`));
  const opened = openDatabase(databaseUrl(url, template), { pool: 1 });
  try {
    await opened.migrate();
  } finally {
    await opened.close();
  }
  const { rows } = await withClient(databaseUrl(url, template), (client) =>
    client.query<{ fingerprint: string }>(SCHEMA_FINGERPRINT),
  );
  return rows[0]?.fingerprint ?? '';
}

/** Drops this run's databases (the template and every copy) and its free list. */
async function dropRun(url: string, template: string): Promise<void> {
  await withClient(url, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname = $1 or datname like $2`,
      [template, `${template}\\_%`],
    );
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
    await admin.query(`drop table if exists ${freeList({ template })}`);
  });
}

/**
 * Vitest globalSetup of the `postgres` project: a server (the one `TAPLINE_TEST_PG` names, or a
 * throwaway cluster), and on it one database migrated to the newest schema, which test databases
 * copy (server.ts). A server that does not start fails the run: the project is only there when
 * PostgreSQL was found (vitest.config.ts). Everything of this run is dropped at its end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TAPLINE_TEST_PG;
  const cluster: Cluster | null = given ? null : await startCluster();
  const url = given ?? cluster?.url ?? '';
  const template = `tapline_run_${randomBytes(4).toString('hex')}`;
  try {
    const fingerprint = await migratedTemplate(url, template);
    await withClient(url, (admin) => admin.query(`create table ${freeList({ template })} (name text primary key)`));
    project.provide('taplinePostgres', { url, template, fingerprint });
  } catch (error) {
    await cluster?.stop();
    throw error;
  }
  return async () => {
    try {
      if (!cluster) await dropRun(url, template);
    } finally {
      await cluster?.stop();
    }
  };
}
