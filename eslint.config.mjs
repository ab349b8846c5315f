import js from '@eslint/js';
import globals from 'globals';
import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', '.data/**', '.kafka/**', '.nx/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      // Bounded contexts: domain code sees only the shared kernel; a context reaches another only
      // through its index.ts (deep imports are refused); apps are composition roots.
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: ['@engage/platform/testing', '@engage/identity/testing', '@engage/calls/testing'],
          depConstraints: [
            { sourceTag: 'scope:shared-kernel', onlyDependOnLibsWithTags: [] },
            { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:shared-kernel'] },
            { sourceTag: 'scope:context', onlyDependOnLibsWithTags: ['scope:shared-kernel', 'scope:platform', 'scope:context'] },
            { sourceTag: 'scope:composition', onlyDependOnLibsWithTags: ['scope:shared-kernel', 'scope:platform', 'scope:context'] },
            { sourceTag: 'scope:app', onlyDependOnLibsWithTags: ['scope:shared-kernel', 'scope:platform', 'scope:composition', 'scope:context'] },
          ],
        },
      ],
    },
  },
  {
    // Domain layers are plain TypeScript: no framework, no database, no other context.
    files: ['libs/*/src/domain/**/*.ts'],
    ignores: ['libs/*/src/domain/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@nestjs/*', 'typeorm', 'pg', 'kafkajs', 'fastify', '@fastify/*'],
              message: 'domain code is plain TypeScript: keep frameworks in application/infrastructure/http',
            },
            { group: ['@engage/*', '!@engage/shared-kernel'], message: 'domain code may import only @engage/shared-kernel' },
            { group: ['../application/*', '../infrastructure/*', '../http/*'], message: 'domain code must not depend on outer layers' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'apps/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
