import { sentFolder } from './email.adapter';

// Where the sent copy goes: the server's \Sent folder, else a folder named as clients name it.
describe('sentFolder', () => {
  const folder = (path: string, specialUse?: string, specialUseSource?: string) => ({ path, specialUse, specialUseSource });

  it('should take the folder the server flags \\Sent over any name', () => {
    expect(sentFolder([folder('Sent'), folder('Outbox', '\\Sent', 'extension')])).toEqual(folder('Outbox', '\\Sent', 'extension'));
  });

  it('should fall back to the names in order of preference, in any case', () => {
    expect(sentFolder([folder('INBOX.Sent'), folder('sent items'), folder('Sent Messages')])?.path).toBe('sent items');
    expect(sentFolder([folder('INBOX.Sent'), folder('Sent Messages')])?.path).toBe('Sent Messages');
    expect(sentFolder([folder('INBOX'), folder('INBOX.Sent')])?.path).toBe('INBOX.Sent');
  });

  it('should not take a folder only guessed from a localised name, nor one merely containing "Sent"', () => {
    expect(sentFolder([folder('Gesendete Elemente', '\\Sent', 'name'), folder('Sent to clients'), folder('Drafts', '\\Drafts', 'extension')])).toBeNull();
  });
});
