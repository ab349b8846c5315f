module.exports = { displayName: 'billing', preset: '../../jest.preset.js' };
