// ESLint's recommended rules over the page (crates/server/web) and its unit tests: a dev-time
// check (npm run lint, in .ci/run); nothing here is used at run time.
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    // A hook's parameters named with a leading _ are there for the overriding classes.
    rules: { 'no-unused-vars': ['error', { argsIgnorePattern: '^_' }] },
  },
  {
    files: ['crates/server/web/**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['crates/server/web/theme.js'],
    languageOptions: { sourceType: 'script' },
  },
  {
    files: ['crates/server/web-tests/**/*.js'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
  },
];
