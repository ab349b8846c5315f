import { emailDomain, findDuplicateGroups, normalizeCompanyName, websiteDomain } from './company-duplicates';

const company = (id: string, over: Partial<{ name: string; website: string; phones: string[]; emails: string[] }> = {}) => ({
  id,
  name: `Company ${id}`,
  website: '',
  phones: [],
  emails: [],
  ...over,
});

describe('company duplicates', () => {
  it('should normalise names, websites and email domains', () => {
    expect(normalizeCompanyName('The ACME, Inc.')).toBe('acme');
    expect(normalizeCompanyName('Café Nile Co. Ltd')).toBe('cafe nile');
    expect(websiteDomain('https://www.Acme.com/about?x=1')).toBe('acme.com');
    expect(websiteDomain('acme.com:8080')).toBe('acme.com');
    expect(emailDomain('sales@Acme.com')).toBe('acme.com');
    expect(emailDomain('someone@gmail.com')).toBe('');
  });

  it('should group companies that share a name, domain, phone or email domain, with score and reasons', () => {
    const groups = findDuplicateGroups([
      company('a', { name: 'Acme Inc', website: 'https://acme.com' }),
      company('b', { name: 'ACME Ltd.', emails: ['info@acme.com'] }),
      company('c', { name: 'Globex', website: 'www.acme.com' }),
      company('d', { name: 'Initech', phones: ['+201001234567'] }),
      company('e', { name: 'Initrode', phones: ['+201001234567'] }),
      company('f', { name: 'Alone' }),
      company('g', { name: 'Free mail', emails: ['x@gmail.com'] }),
      company('h', { name: 'Other free', emails: ['y@gmail.com'] }),
    ]);
    expect(groups).toEqual([
      { company_ids: ['a', 'b', 'c'], score: 0.96, reasons: ['same normalised name acme', 'same website domain acme.com'] },
      { company_ids: ['d', 'e'], score: 0.8, reasons: ['same phone +201001234567'] },
    ]);
  });
});
