// Lint for the whole workspace: `pnpm lint` (eslint . --max-warnings 0), run by `pnpm test`.
// TypeScript gets typescript-eslint's recommended type-aware rules, typed through the root
// tsconfig.json (which includes every package's src, e2e, bench and the build configs).
import js from '@eslint/js';
import globals from 'globals';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**'],
  },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      // `_`-prefixed names are deliberate placeholders (callback positions, destructuring away).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
    },
  },
  {
    // Shipped code derives its types (Kysely row types, zod-inferred wire types, type guards); the
    // few casts left each say why on an eslint-disable line, and `node scripts/count-casts.mjs`
    // counts them. Tests and the test kit may cast their fixtures.
    files: ['packages/*/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.{ts,tsx}', 'packages/testkit/**'],
    rules: { '@typescript-eslint/consistent-type-assertions': ['error', { assertionStyle: 'never' }] },
  },
  {
    // Fakes and stubs in tests stand in for async interfaces: `async` there keeps a throw a
    // rejection, as in the real implementation, even when the stand-in has nothing to await.
    files: ['**/*.test.{ts,tsx}', 'packages/testkit/**', 'e2e/**'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  {
    // A daemon's start does not load zod (docs/decisions.md §20.26): its own schemas are built on first
    // use through zod-on-first-use.ts, whose import() of zod-loaded.ts the bundle makes a require on
    // first use. Types may be imported. Besides zod-loaded.ts, meta/json-schema.ts takes zod itself:
    // only meta/openapi.ts imports it, loaded by the first GET /openapi.json. e2e/start-loads-no-zod
    // checks the built bundle, where the contract's schemas (§20.23) would load zod too.
    files: ['packages/daemon/src/**/*.ts'],
    ignores: ['**/*.test.ts', 'packages/daemon/src/zod-loaded.ts', 'packages/daemon/src/meta/json-schema.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'zod',
              message:
                'A start must not load zod: build the schema on first use (zod-on-first-use.ts, decisions §20.26).',
              allowTypeImports: true,
            },
          ],
          patterns: [
            {
              group: ['zod/*'],
              message:
                'A start must not load zod: build the schema on first use (zod-on-first-use.ts, decisions §20.26).',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // The Ink UI: the two classic hook rules only. The plugin's `recommended` set also carries the
    // React Compiler rules, and this project does not use the compiler.
    files: ['packages/cli/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
    },
  },
  {
    // Plain JavaScript (bench scripts, this file): no type information, so the untyped rule set.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: {
      globals: { ...globals.node },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
  },
);
