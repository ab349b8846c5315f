module.exports = { displayName: 'messaging', preset: '../../jest.preset.js' };
