module.exports = { displayName: 'reengagement', preset: '../../jest.preset.js' };
