module.exports = { displayName: 'shared-kernel', preset: '../../jest.preset.js' };
