import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempHome } from './support/binaries.js';

/**
 * The bench's quick mode, against the built binaries, so the harness never rots: every scenario
 * runs, and every figure it declares is written to the results file as finite numbers (or is a
 * peer named as skipped, with the reason). Never a timing threshold: CI machines vary too much.
 */

interface Figure {
  unit: string;
  rounds: number[];
  median: number;
  ratio?: Record<string, { rounds: number[]; median: number }>;
}
interface Results {
  mode: string;
  machine: { cpu: string; cores: number; memoryGiB: number; node: string; startedAt: string };
  scenarios: Record<
    string,
    { error?: string; seconds: number; figures?: Record<string, Figure>; skipped?: Record<string, string> }
  >;
}

const root = join(import.meta.dirname, '..');
const scenarioDir = join(root, 'bench', 'scenarios');
const out = tempHome('tapline-bench-quick-');
afterAll(() => out.remove());

async function declaredFigures(file: string): Promise<string[]> {
  const scenario: unknown = await import(pathToFileURL(join(scenarioDir, file)).href);
  if (typeof scenario === 'object' && scenario !== null && 'figures' in scenario && Array.isArray(scenario.figures))
    return scenario.figures.map(String);
  throw new Error(`${file} exports no figures list`);
}

const finite = (values: number[]) => values.length > 0 && values.every((v) => Number.isFinite(v));

describe('pnpm bench --quick', () => {
  it('runs every scenario and writes every figure as finite numbers', async () => {
    const file = join(out.path, 'results.json');
    const run = await execa('node', [join(root, 'bench', 'run.mjs'), '--quick', '--out', file], {
      env: cleanEnv(),
      extendEnv: false,
      reject: false,
      timeout: 900_000,
    });
    const results = JSON.parse(readFileSync(file, 'utf8')) as Results;
    const failures = Object.entries(results.scenarios).flatMap(([name, s]) => (s.error ? [`${name}: ${s.error}`] : []));
    expect(failures).toEqual([]);
    expect(run.exitCode).toBe(0);

    expect(results.mode).toBe('quick');
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.cpu).not.toBe('');
    expect(results.machine.node).toBe(process.version);
    const files = readdirSync(scenarioDir).filter((f) => f.endsWith('.mjs'));
    // Names compared without the extension: 'stats-ingest.mjs' sorts before 'stats.mjs', 'stats' before 'stats-ingest'.
    expect(Object.keys(results.scenarios).sort()).toEqual(files.map((f) => f.replace(/\.mjs$/, '')).sort());

    for (const f of files) {
      const scenario = results.scenarios[f.replace(/\.mjs$/, '')];
      const skipped = Object.keys(scenario?.skipped ?? {});
      for (const name of await declaredFigures(f)) {
        const figure = scenario?.figures?.[name];
        if (figure === undefined && skipped.some((what) => name.includes(what))) continue;
        expect(figure, `${f}: ${name}`).toBeDefined();
        expect(finite([...(figure?.rounds ?? []), figure?.median ?? Number.NaN]), `${f}: ${name} is finite`).toBe(true);
        for (const [floor, ratio] of Object.entries(figure?.ratio ?? {})) {
          expect(finite([...ratio.rounds, ratio.median]), `${f}: ${name} / ${floor} is finite`).toBe(true);
          expect(ratio.rounds).toHaveLength(figure?.rounds.length ?? 0);
        }
      }
    }
    // Tapline is measured against its floors: every floor the issue names shows up as a ratio.
    const floors = Object.values(results.scenarios).flatMap((s) =>
      Object.values(s.figures ?? {}).flatMap((fig) => Object.keys(fig.ratio ?? {})),
    );
    for (const floor of [
      'bare Express 5',
      'bare node:http',
      'better-sqlite3 insert',
      'parse + redact + insert',
      'repository SQL in better-sqlite3',
      'the same question in SQL on the raw entries',
      '--no-stats',
      'static page of the same size',
    ]) {
      expect(floors).toContain(floor);
    }
  }, 900_000);
});
