import { SETTINGS } from './settings';

// .env.example is generated from SETTINGS so the two cannot drift; a test compares them.
export function renderEnvExample(): string {
  const lines = ['# Generated from libs/platform/src/config/settings.ts by `npm run env:example`. Do not edit by hand.', ''];
  let group = '';
  for (const [name, setting] of Object.entries(SETTINGS)) {
    if (setting.group !== group) {
      if (group !== '') lines.push('');
      lines.push(`# --- ${setting.group} ---`);
      group = setting.group;
    }
    lines.push(`# ${setting.description}${setting.sensitive ? ' (sensitive)' : ''}`);
    lines.push(`${setting.example === undefined ? '# ' : ''}${name}=${setting.example ?? ''}`);
  }
  return lines.join('\n') + '\n';
}
