import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the daemon's tests did not run on PostgreSQL in this run. */
    taplinePostgresMissing: string;
  }
}

/** Vitest globalSetup: the notice, at the end of the run, that the PostgreSQL half did not run. */
export default function setup(project: TestProject): () => void {
  const reason = project.config.provide.taplinePostgresMissing;
  const notice = `\nNOTICE: the daemon's tests did not run on PostgreSQL: ${reason}.\nInstall PostgreSQL (apt-get install postgresql) or set TAPLINE_TEST_PG=postgres://user:password@host:5432/postgres.\n\n`;
  process.stderr.write(notice);
  return () => void process.stderr.write(notice);
}
