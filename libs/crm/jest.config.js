module.exports = { displayName: 'crm', preset: '../../jest.preset.js' };
