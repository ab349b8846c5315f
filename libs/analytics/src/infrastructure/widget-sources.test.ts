import { defineRegistry } from '@engage/data-api';
import { sourceSql, widgetSources } from './widget-sources';

// A data API that serves deals with a column only admins read, and no messages table at all.
const registry = defineRegistry([
  {
    name: 'deals',
    columns: {
      id: 'uuid',
      organization_id: 'uuid',
      title: 'text',
      value: 'numeric',
      probability: 'int',
      tags: 'text[]',
      margin: 'numeric',
      created_at: 'timestamptz',
    },
    readable: ['id', 'organization_id', 'title', 'value', 'probability', 'tags', 'margin', 'created_at'],
    restricted: { columns: ['margin'], roles: ['OWNER', 'ADMIN'] },
  },
]);

describe('widget tables as a member sees them', () => {
  it("should take the data API's columns the member reads, and the derived ones it does not serve", () => {
    const admin = widgetSources(registry, 'ADMIN').deals;
    const agent = widgetSources(registry, 'AGENT').deals;
    expect(admin.columns).toEqual(expect.arrayContaining(['title', 'tags', 'margin', 'outcome', 'stage_name', 'closed_at']));
    expect(agent.columns).toContain('tags');
    expect(agent.columns).not.toContain('margin');
    expect(agent.definition.readable).not.toContain('margin');
    expect([admin.numeric, agent.numeric]).toEqual([
      ['value', 'probability', 'margin'],
      ['value', 'probability'],
    ]);
    expect(agent.times).toEqual(['created_at', 'closed_at']);
    // Members who read different columns never share a cached value.
    expect([admin.hidden, agent.hidden]).toEqual(['', 'margin']);
    expect(widgetSources(registry, 'AGENT')).toBe(widgetSources(registry, 'AGENT'));
  });

  it('should keep the facts alone for a table the data API does not serve', () => {
    const messages = widgetSources(registry, 'AGENT').messages;
    expect(messages.columns).toContain('response_seconds');
    expect(messages.served.size).toBe(0);
  });

  it("should join the data API's table only for a column the facts lack", () => {
    const deals = widgetSources(registry, 'ADMIN').deals;
    expect(sourceSql(deals, ['value', 'outcome', 'created_at'], 'every')).not.toContain('JOIN');
    const joined = sourceSql(deals, ['tags', 'value', 'tags', 'margin'], 'every');
    expect(joined).toMatch(/^SELECT f\.\*, d\."tags", d\."margin" FROM \(SELECT .* FROM crm_deal_facts\) f JOIN "deals" d ON d\.id = f\.id$/);
  });
});
