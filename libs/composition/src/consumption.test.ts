import { EventCatalogue } from '@engage/platform';
import { defineEvent } from '@engage/shared-kernel';
import { ORGANIZATION_CREATED } from '@engage/identity';
import { compose, CONTEXTS } from './index';

const consumersOf = (contexts = CONTEXTS) => contexts.map((context) => ({ context: context.name, consumes: context.consumes }));

// A manifest's `consumes` is enforced: what it names must be published, and a consumer may read
// only the topics its context declares.
describe("the manifests' consumes", () => {
  const catalogue = new EventCatalogue(compose(CONTEXTS).events, consumersOf());

  it('should admit the subscriptions the composed contexts declare', () => {
    expect(() => catalogue.assertDeclared({ consumer: 'crm.default-pipeline', sources: [ORGANIZATION_CREATED.source] })).not.toThrow();
    const timelineSources = catalogue.sourcesOf(catalogue.all().filter((contract) => contract.timeline));
    expect(timelineSources.length).toBeGreaterThan(0);
    expect(() => catalogue.assertDeclared({ consumer: 'crm.timeline', sources: timelineSources })).not.toThrow();
    const webhookSources = catalogue.sourcesOf(catalogue.webhookKinds());
    expect(() => catalogue.assertDeclared({ consumer: 'webhooks.deliveries', sources: webhookSources })).not.toThrow();
  });

  it('should refuse a subscription to a topic its context does not declare', () => {
    // Messaging declares no consumption at all; identity's topic is not in the webhooks contracts.
    expect(() => catalogue.assertDeclared({ consumer: 'messaging.sneaky', sources: [ORGANIZATION_CREATED.source] })).toThrow(
      /"messaging.sneaky" reads identity.*does not declare/,
    );
    expect(() => catalogue.assertDeclared({ consumer: 'webhooks.other', sources: ['identity'] })).toThrow(/does not declare/);
  });

  it('should refuse a consumer not named after a composed context', () => {
    expect(() => catalogue.assertDeclared({ consumer: 'nobody.listens', sources: [] })).toThrow(/not named after a composed context/);
  });

  it('should refuse a manifest consuming an event no composed context publishes', () => {
    const GHOST = defineEvent<{ id: string }>({ name: 'ghost.appeared', source: 'ghosts', version: 1, description: 'never published' });
    const [crm, ...others] = CONTEXTS.filter((context) => context.name === 'crm');
    expect(others).toEqual([]);
    const consumers = [...consumersOf(CONTEXTS.filter((context) => context !== crm)), { context: 'crm', consumes: { events: [GHOST] } }];
    expect(() => new EventCatalogue(compose(CONTEXTS).events, consumers)).toThrow(
      /"crm" consumes "ghost.appeared" \(ghosts\), which no composed context publishes/,
    );
  });

  it('should leave a catalogue without declarations (a test runtime of a few modules) unchecked', () => {
    expect(() => new EventCatalogue(compose(CONTEXTS).events).assertDeclared({ consumer: 'anything', sources: ['x'] })).not.toThrow();
  });
});
