// ESLint (flat config) for the TypeScript of the VS Code client and the playground page;
// .ci/run runs `npm run lint`. typescript-eslint's recommended rules, without type
// information (tsc --noEmit already type-checks both: `npm run typecheck`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'server/**', 'bundled/**', 'site/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['client-vscode/src/**/*.ts', 'client-playground/src/**/*.ts'],
    rules: {
      // a parameter named _x is unused on purpose (a callback's signature), as tsc's noUnusedLocals reads it
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
);
