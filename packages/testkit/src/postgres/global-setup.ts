import { randomBytes } from 'node:crypto';
import { openDatabase } from '@tapline/daemon';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { type Cluster, startCluster } from './cluster.js';
import { databaseUrl } from './urls.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL server of this run: a URL allowed to create databases, and the migrated template to copy. */
    taplinePostgres: { readonly url: string; readonly template: string };
  }
}

/**
 * Vitest globalSetup of the `postgres` project: a server (the one `TAPLINE_TEST_PG` names, or a
 * throwaway cluster), and on it one database migrated to the newest schema, which every test
 * database copies (`CREATE DATABASE … TEMPLATE`, far quicker than migrating each). A server that
 * does not start fails the run: the project is only there when PostgreSQL was found (vitest.config.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const given = process.env.TAPLINE_TEST_PG;
  const cluster: Cluster | null = given ? null : await startCluster();
  const url = given ?? cluster?.url ?? '';
  const template = `tapline_template_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  try {
    await admin.connect();
    await admin.query(`create database ${template}`);
    const opened = openDatabase(databaseUrl(url, template), { pool: 1 });
    try {
      await opened.migrate();
    } finally {
      await opened.close();
    }
  } catch (error) {
    await admin.end().catch(() => {});
    await cluster?.stop();
    throw error;
  }
  project.provide('taplinePostgres', { url, template });
  return async () => {
    try {
      await admin.query(`drop database if exists ${template} with (force)`);
      await admin.end();
    } finally {
      await cluster?.stop();
    }
  };
}
