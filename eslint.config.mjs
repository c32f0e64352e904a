import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// What only shared/src/process/tracing.ts may import: the SDK, its exporters and resources.
const OTEL_SDK = {
  group: ['@opentelemetry/*', '!@opentelemetry/api', '!@opentelemetry/semantic-conventions'],
  message:
    'Only shared/src/process/tracing.ts starts the OpenTelemetry SDK; elsewhere use @opentelemetry/api (or tracing/spans.ts).',
};

// Packages meet at their entry points (each package.json's `exports`), never inside another's src/.
const DEEP_IMPORT = {
  group: ['@tokenops/*/src', '@tokenops/*/src/*', '**/../shared/src/**', '**/../services/*/src/**'],
  message: "Import a package by its entry points (its package.json's exports), not from its src/.",
};

// Test support (@tokenops/testing) is for tests: no production file imports it.
const TEST_SUPPORT = {
  group: ['@tokenops/testing', '@tokenops/testing/*', '**/testing/*'],
  message: 'Test support is for tests (*.spec.ts, bench/, scripts/): production code does not import it.',
};

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'coverage/**', 'data/**', '.stryker-tmp/**', 'reports/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // Tracing: code uses @opentelemetry/api (a no-op while tracing is off); only the tracing module
    // starts the SDK and its exporter. (What the domain and the application may import at all is
    // dependency-cruiser's: .dependency-cruiser.cjs, `npm run lint:rooms`.)
    files: ['**/*.ts'],
    ignores: ['shared/src/process/tracing.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [OTEL_SDK] }],
    },
  },
  {
    // No deep imports (DEEP_IMPORT), as a rule of its own: the layer rules above (no-restricted-imports)
    // still apply.
    files: ['**/*.ts', '**/*.mjs'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [DEEP_IMPORT],
        },
      ],
    },
  },
  {
    // Test support (@tokenops/testing) is for tests: no production file imports it.
    files: ['**/*.ts'],
    ignores: ['**/*.spec.ts', 'packages/testing/**', 'bench/**', 'scripts/**', 'jest*.config.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [DEEP_IMPORT, TEST_SUPPORT],
        },
      ],
    },
  },
  {
    // The HTTP service's routes and middleware talk to ports and the application: adapters are for the
    // entry points that compose them (app.ts, deps.ts, embedded.ts, server.ts, main.ts, config.ts).
    files: ['services/api/src/**/*.ts'],
    ignores: ['**/*.spec.ts', 'services/api/src/{app,deps,embedded,server,main,config,demo}.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            DEEP_IMPORT,
            TEST_SUPPORT,
            {
              group: ['@tokenops/shared/adapters'],
              message: 'Routes talk to ports (@tokenops/shared); adapters are wired by the entry points.',
            },
          ],
        },
      ],
    },
  },
  {
    // Settings are read through Env by their entry in shared/src/settings/catalogue.ts (the
    // docs' settings tables are generated from it): no other production code reads process.env.
    files: [
      'shared/src/**/*.ts',
      'services/*/src/**/*.ts',
      'projections/src/**/*.ts',
      'workers/*/src/**/*.ts',
    ],
    ignores: ['**/*.spec.ts', 'shared/src/process/env.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'Read a setting with Env (shared/src/process/env.ts) by its entry in shared/src/settings/catalogue.ts, so the docs list it.',
        },
      ],
    },
  },
  {
    // Executable entry points, and PGlite's driver and thread (a worker thread loads them without
    // ts-node), are plain CommonJS.
    files: ['**/bin/*.js', 'shared/src/sql/pglite-*.js', '.dependency-cruiser.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        __dirname: 'readonly',
        module: 'readonly',
        Buffer: 'readonly',
        Blob: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
