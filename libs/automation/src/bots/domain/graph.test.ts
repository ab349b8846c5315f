import { DomainError } from '@engage/shared-kernel';
import { readAnswer, keywordMatches, questionText } from './answers';
import { parseBotFlow } from './flow';
import { graphProblems } from './graph';
import type { AskNode } from './nodes';

const ACCOUNT = '0b6f1f5e-34a5-4d42-9d0b-1f2a3b4c5d6e';
const flow = (definition: unknown, extra: Record<string, unknown> = {}) =>
  parseBotFlow({ name: 'Welcome', channel_account_ids: [ACCOUNT], trigger: { type: 'new_conversation' }, definition, ...extra });
const definitionOf = (nodes: unknown[], start = 'hello') => flow({ start, nodes }).definition;

function refusal(run: () => unknown): { path: unknown; message: string; code: string } {
  try {
    run();
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return { path: (error.details as { path?: unknown })?.path, message: error.message, code: error.code };
  }
  throw new Error('expected a refusal');
}

describe('the graph validator', () => {
  it('should find nothing wrong in a flow whose every node is reachable and whose cycle waits at an ask', () => {
    const definition = definitionOf([
      { id: 'hello', type: 'message', text: 'Hi!', next: 'menu' },
      {
        id: 'menu',
        type: 'ask',
        text: 'Sales or support?',
        validate: 'choice',
        choices: [
          { label: 'Sales', next: 'email' },
          { label: 'Support', value: 'support' },
        ],
        next: 'route',
      },
      { id: 'email', type: 'ask', text: 'Your email?', validate: 'email', save_as: 'contact.emails', next: 'route' },
      {
        id: 'route',
        type: 'branch',
        cases: [{ conditions: { all: [{ field: 'variables.again', operator: 'equals', value: 'yes' }] }, next: 'menu' }],
        default: 'bye',
      },
      { id: 'bye', type: 'end', text: 'Bye {{contact.first_name | there}}' },
    ]);
    expect(graphProblems(definition)).toEqual([]);
  });

  it('should name each node with a missing or unknown next, and an unknown start', () => {
    const definition = definitionOf([
      { id: 'hello', type: 'message', text: 'Hi!' },
      { id: 'hook', type: 'webhook', url: 'https://example.com/x', next: 'nowhere', on_error: 'gone' },
      { id: 'route', type: 'branch', cases: [{ conditions: { all: [] }, next: 'hello' }] },
    ]);
    expect(graphProblems(definition).filter((p) => p.problem !== 'is not reachable from the start')).toEqual([
      { node_id: 'hello', path: 'definition.nodes[0].next', problem: 'is missing: the node it goes to' },
      { node_id: 'hook', path: 'definition.nodes[1].next', problem: 'names "nowhere", which is not a node' },
      { node_id: 'hook', path: 'definition.nodes[1].on_error', problem: 'names "gone", which is not a node' },
      { node_id: 'route', path: 'definition.nodes[2].default', problem: 'is missing: the node it goes to' },
    ]);
    expect(graphProblems({ ...definition, start: 'missing' })[0]).toEqual({
      node_id: null,
      path: 'definition.start',
      problem: 'names "missing", which is not a node',
    });
  });

  it('should name unreachable nodes', () => {
    const definition = definitionOf([
      { id: 'hello', type: 'end', text: 'Hi' },
      { id: 'island', type: 'message', text: 'never', next: 'hello' },
      { id: 'far', type: 'end' },
    ]);
    expect(graphProblems(definition)).toEqual([
      { node_id: 'island', path: 'definition.nodes[1]', problem: 'is not reachable from the start' },
      { node_id: 'far', path: 'definition.nodes[2]', problem: 'is not reachable from the start' },
    ]);
  });

  it('should name every node of a cycle with no ask, and accept the same cycle through an ask', () => {
    const loop = (middle: object) =>
      definitionOf([
        { id: 'hello', type: 'message', text: 'Hi', next: 'tag' },
        { id: 'tag', type: 'add_tags', tags: ['x'], next: 'middle' },
        { id: 'middle', ...middle },
      ]);
    expect(graphProblems(loop({ type: 'set_field', field: 'variables.n', value: 1, next: 'hello' }))).toEqual(
      ['hello', 'tag', 'middle'].map((id, at) => ({
        node_id: id,
        path: `definition.nodes[${at}]`,
        problem: 'is on a cycle with no ask (nodes hello, tag, middle)',
      })),
    );
    expect(graphProblems(loop({ type: 'ask', text: 'Again?', next: 'hello' }))).toEqual([]);
    // A node that goes to itself.
    const self = definitionOf([{ id: 'hello', type: 'message', text: 'Hi', next: 'hello' }]);
    expect(graphProblems(self)).toEqual([{ node_id: 'hello', path: 'definition.nodes[0]', problem: 'is on a cycle with no ask (nodes hello)' }]);
  });

  it('should name a choice ask without choices, and a choice with nowhere to go', () => {
    const definition = definitionOf([
      { id: 'hello', type: 'ask', text: 'Pick', validate: 'choice', next: 'bye' },
      { id: 'bye', type: 'ask', text: 'Pick', validate: 'choice', choices: [{ label: 'A', next: 'end' }, { label: 'B' }] },
      { id: 'end', type: 'end' },
    ]);
    expect(graphProblems(definition)).toEqual([
      { node_id: 'hello', path: 'definition.nodes[0].choices', problem: 'a choice ask needs choices' },
      { node_id: 'bye', path: 'definition.nodes[1].choices[1].next', problem: 'is missing: the node it goes to' },
    ]);
  });
});

describe('the flow validator', () => {
  it('should fill in the defaults', () => {
    const parsed = flow({ start: 'a', nodes: [{ id: 'a', type: 'ask', text: 'Name?', save_as: 'contact.first_name', next: 'b' }] });
    expect(parsed.settings).toEqual({ expire_minutes: 240, finish_keywords: [], unknown_reply: null });
    expect(parsed.is_active).toBe(true);
    expect(parsed.definition.nodes[0]).toEqual({
      id: 'a',
      type: 'ask',
      text: 'Name?',
      save_as: 'contact.first_name',
      validate: 'text',
      max_retries: 2,
      next: 'b',
    });
    const keyword = flow({ start: 'a', nodes: [] }, { trigger: { type: 'keyword', keywords: [' Menu '] } });
    expect(keyword.trigger).toEqual({ type: 'keyword', keywords: ['Menu'], match: 'equals' });
  });

  it('should refuse bad input with the path of what is wrong', () => {
    const node = (extra: object) => ({ start: 'a', nodes: [{ id: 'a', ...extra }] });
    const cases: [() => unknown, string, RegExp][] = [
      [() => flow({ start: 'a', nodes: [] }, { name: '' }), 'name', /required/],
      [() => flow({ start: 'a', nodes: [] }, { channel_account_ids: ['nope'] }), 'channel_account_ids[0]', /UUID/],
      [() => flow({ start: 'a', nodes: [] }, { channel_account_ids: [] }), 'channel_account_ids', /non-empty/],
      [() => flow({ start: 'a', nodes: [] }, { trigger: { type: 'sometimes' } }), 'trigger.type', /not a trigger/],
      [() => flow({ start: 'a', nodes: [] }, { trigger: { type: 'keyword' } }), 'trigger.keywords', /required/],
      [() => flow({ start: 'a', nodes: [] }, { trigger: { type: 'keyword', keywords: ['x'], match: 'regex' } }), 'trigger.match', /not a match/],
      [() => flow({ start: 'a', nodes: [] }, { settings: { expire_minutes: 0 } }), 'settings.expire_minutes', /whole number/],
      [() => flow({ start: 'a', nodes: [] }, { settings: { colour: 1 } }), 'settings.colour', /unknown key/],
      [() => flow({ start: 'a', nodes: [] }, { colour: 1 }), 'colour', /unknown field/],
      [() => flow({ nodes: [] }), 'definition.start', /required/],
      [() => flow(node({ type: 'teleport' })), 'definition.nodes[0].type', /not a node type/],
      [() => flow(node({ type: 'message', text: 'x'.repeat(4097), next: 'a' })), 'definition.nodes[0].text', /at most 4096/],
      [() => flow(node({ type: 'message', text: 'Hi {{contact.nickname}}' })), 'definition.nodes[0].text', /not a field/],
      [() => flow(node({ type: 'message', text: 'Hi', media_url: 'http://x.example' })), 'definition.nodes[0].media_url', /https/],
      [() => flow(node({ type: 'ask', text: 'Q', validate: 'colour' })), 'definition.nodes[0].validate', /not a validation/],
      [() => flow(node({ type: 'ask', text: 'Q', save_as: 'contact.password' })), 'definition.nodes[0].save_as', /variables/],
      [() => flow(node({ type: 'ask', text: 'Q', save_as: 'contact.emails' })), 'definition.nodes[0].validate', /email/],
      [() => flow(node({ type: 'ask', text: 'Q', choices: [{ label: 'A' }] })), 'definition.nodes[0].choices', /validate "choice"/],
      [() => flow(node({ type: 'ask', text: 'Q', validate: 'choice', choices: [{ label: '' }] })), 'definition.nodes[0].choices[0].label', /required/],
      [() => flow(node({ type: 'ask', text: 'Q', on_timeout: 'a' })), 'definition.nodes[0].on_timeout', /timeout_minutes/],
      [() => flow(node({ type: 'ask', text: 'Q', max_retries: 11 })), 'definition.nodes[0].max_retries', /0 to 10/],
      [() => flow(node({ type: 'ask', text: 'Q', next: 'no spaces' })), 'definition.nodes[0].next', /node id/],
      [
        () => flow(node({ type: 'branch', cases: [{ conditions: { all: [{ field: 'deal.value', operator: 'equals', value: 1 }] }, next: 'a' }] })),
        'definition.nodes[0].cases[0].conditions.all[0].field',
        /not a field/,
      ],
      [
        () => flow(node({ type: 'branch', cases: [{ conditions: { all: [{ field: 'variables.x', operator: 'like', value: 1 }] } }] })),
        'definition.nodes[0].cases[0].conditions.all[0].operator',
        /not an operator/,
      ],
      [() => flow(node({ type: 'set_field', field: 'contact.first_name', value: 3 })), 'definition.nodes[0].value', /takes a text/],
      [() => flow(node({ type: 'add_tags', tags: [] })), 'definition.nodes[0].tags', /1 to 20/],
      [() => flow(node({ type: 'webhook', url: 'ftp://x' })), 'definition.nodes[0].url', /https/],
      [() => flow(node({ type: 'handoff', assignee: 'someone' })), 'definition.nodes[0].assignee', /UUID/],
      [() => flow(node({ type: 'end', pinned: true })), 'definition.nodes[0].pinned', /unknown key/],
      [
        () =>
          flow({
            start: 'a',
            nodes: [
              { id: 'a', type: 'end' },
              { id: 'a', type: 'end' },
            ],
          }),
        'definition.nodes[1].id',
        /earlier node/,
      ],
    ];
    for (const [run, path, message] of cases) {
      const refused = refusal(run);
      expect({ path: refused.path, code: refused.code }).toEqual({ path, code: 'bot_flow.invalid' });
      expect(refused.message).toMatch(message);
      expect(refused.message.startsWith(`${path}: `)).toBe(true);
    }
  });

  it('should merge a change into the stored flow and check the whole', () => {
    const stored = flow({ start: 'a', nodes: [{ id: 'a', type: 'end' }] }, { settings: { expire_minutes: 30 } });
    const renamed = parseBotFlow({ name: 'Renamed' }, stored);
    expect(renamed).toEqual({ ...stored, name: 'Renamed' });
    expect(refusal(() => parseBotFlow({ trigger: { type: 'keyword' } }, stored)).path).toBe('trigger.keywords');
  });
});

describe('answers', () => {
  const ask = (extra: Partial<AskNode>): AskNode => ({ id: 'q', type: 'ask', text: 'Q', validate: 'text', max_retries: 2, next: 'n', ...extra });
  it('should read each validation, and refuse what does not pass', () => {
    expect(readAnswer(ask({}), '  hello ')).toEqual({ value: 'hello', next: 'n' });
    expect(readAnswer(ask({}), '   ')).toBeUndefined();
    expect(readAnswer(ask({ validate: 'number' }), '2,5')).toEqual({ value: 2.5, next: 'n' });
    expect(readAnswer(ask({ validate: 'number' }), 'two')).toBeUndefined();
    expect(readAnswer(ask({ validate: 'email' }), 'Ada@Example.COM')).toEqual({ value: 'ada@example.com', next: 'n' });
    expect(readAnswer(ask({ validate: 'email' }), 'ada at example')).toBeUndefined();
    expect(readAnswer(ask({ validate: 'phone' }), '+20 (100) 123-4567')).toEqual({ value: '+201001234567', next: 'n' });
    expect(readAnswer(ask({ validate: 'phone' }), '12')).toBeUndefined();
    expect(readAnswer(ask({ validate: 'phone' }), 'call me')).toBeUndefined();
  });

  it('should take a choice by number, value or label, going to its next or the ask’s', () => {
    const node = ask({
      validate: 'choice',
      choices: [
        { label: 'Sales', value: 'sales', next: 's' },
        { label: 'Support', value: 'help' },
      ],
    });
    expect(readAnswer(node, '1')).toEqual({ value: 'sales', next: 's' });
    expect(readAnswer(node, 'HELP')).toEqual({ value: 'help', next: 'n' });
    expect(readAnswer(node, 'support')).toEqual({ value: 'help', next: 'n' });
    expect(readAnswer(node, '3')).toBeUndefined();
    expect(questionText(node, 'Which?')).toBe('Which?\n1. Sales\n2. Support');
  });

  it('should match keywords as the trigger says', () => {
    expect(keywordMatches(['Menu'], 'equals', ' menu ')).toBe(true);
    expect(keywordMatches(['Menu'], 'equals', 'menu please')).toBe(false);
    expect(keywordMatches(['price'], 'contains', 'What PRICE?')).toBe(true);
    expect(keywordMatches(['hi'], 'starts_with', 'Hi there')).toBe(true);
    expect(keywordMatches(['hi'], 'starts_with', 'oh hi')).toBe(false);
  });
});
