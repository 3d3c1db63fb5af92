// ESLint flat config: typescript-eslint's strict type-checked rules for the TypeScript sources,
// the recommended JS rules for plain .js/.mjs files (Node scripts, this config).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'www/pkg/**',
      'node_modules/**',
      'target/**',
      'target-*/**',
      'artifacts/**',
      'test-results/**',
      'crate/**',
      'tools/**',
      'tests/tools/**',
      '**/.venv/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.strictTypeChecked, ...tseslint.configs.stylisticTypeChecked],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: false }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Page code runs in the browser: the Node types in tsconfig.json are for tests and tooling only.
    files: ['www/src/**/*.ts'],
    ignores: ['www/src/**/*.test.ts', 'www/src/**/testing.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^node:', message: 'page code runs in the browser' }] }],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'require', '__dirname', '__filename', 'global'],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: { ...globals.node },
    },
  },
  {
    // The service worker (www/sw/, filled in and copied to dist/ by vite.config.ts).
    files: ['www/sw/**/*.js'],
    languageOptions: {
      globals: { ...globals.serviceworker },
    },
  },
  {
    // Code in tests/e2e that runs inside page.evaluate() sees browser globals.
    files: ['tests/e2e/**/*.mjs'],
    languageOptions: {
      globals: { ...globals.node, ...globals.browser },
    },
  },
);
