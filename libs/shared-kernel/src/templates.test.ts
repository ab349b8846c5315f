import { checkTemplate, renderTemplate } from './templates';

describe('templates', () => {
  it('should render fields with their fallback when empty or null', () => {
    const values: Record<string, unknown> = { 'contact.first_name': 'Ada', 'contact.last_name': null, 'contact.source': '' };
    const text = 'Hi {{contact.first_name}} {{contact.last_name | there}} from {{contact.source|afar}}';
    expect(renderTemplate(text, (field) => values[field])).toBe('Hi Ada there from afar');
  });

  it("should refuse with the caller's code and the text's path", () => {
    expect(() => checkTemplate('Hi {{contact.shoe}}', 'content.text', () => false, 'campaigns.invalid_content')).toThrow(
      expect.objectContaining({ code: 'campaigns.invalid_content', details: { path: 'content.text', field: 'contact.shoe' } }),
    );
    expect(() => checkTemplate('Hi {{contact', 'text', () => true)).toThrow(expect.objectContaining({ code: 'template.invalid' }));
  });
});
