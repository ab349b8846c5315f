import { ROLES } from '@engage/shared-kernel';
import { API_KEYS_MANAGE, identityManifest, ORGANIZATION_SETTINGS_MANAGE } from '@engage/identity';
import { WEBHOOKS_MANAGE } from '@engage/webhooks';
import { compose, CONTEXT_PERMISSIONS, CONTEXTS } from './index';

// Each context declares its permissions in its manifest; the composition gathers them.
describe("the manifests' permissions", () => {
  it("should gather every context's permissions, each name once, each naming only member roles", () => {
    const names = CONTEXT_PERMISSIONS.map((permission) => permission.name);
    expect(new Set(names).size).toBe(names.length);
    expect(CONTEXT_PERMISSIONS).toEqual(expect.arrayContaining([API_KEYS_MANAGE, ORGANIZATION_SETTINGS_MANAGE, WEBHOOKS_MANAGE]));
    expect(names).toEqual(expect.arrayContaining(['reengagement.configure', 'reengagement.drafts.review']));
    for (const permission of CONTEXT_PERMISSIONS) {
      expect(permission.roles.length).toBeGreaterThan(0);
      for (const role of permission.roles) expect(ROLES).toContain(role);
      expect(Object.isFrozen(permission) && Object.isFrozen(permission.roles)).toBe(true);
    }
  });

  it('should refuse two contexts declaring one permission name', () => {
    const impostor = { ...CONTEXTS[1], name: 'impostor', permissions: [{ name: API_KEYS_MANAGE.name, roles: ['AGENT' as const] }] };
    expect(() => compose([identityManifest, impostor])).toThrow('permission "api_keys.manage" is declared by both identity and impostor');
  });
});
