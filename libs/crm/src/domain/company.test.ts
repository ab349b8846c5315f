import { completeNewCompany, parseCompanyFields } from './company';
import { parseDealFields } from './deal';

describe('company and deal fields, from their declarations', () => {
  it('should normalise a company and fill its defaults', () => {
    const input = { name: ' Acme ', phones: ['010 0123 4567', ''], emails: ['Sales@Acme.com', 'sales@acme.com'] };
    const company = completeNewCompany(parseCompanyFields(input, 'EG'));
    expect(company).toEqual({
      name: 'Acme',
      country: '',
      website: '',
      industry: '',
      address_street: '',
      address_city: '',
      address_state: '',
      address_postal_code: '',
      address_country: '',
      phones: ['+201001234567'],
      emails: ['sales@acme.com'],
      company_size: '',
      annual_revenue: null,
      tags: [],
      notes: '',
      description: '',
    });
  });

  it.each([
    [{ name: '  ' }, 'name must not be empty'],
    [{ website: 'x'.repeat(2049) }, 'website must be at most 2048 characters'],
    [{ emails: ['not-an-email'] }, 'emails holds an invalid address'],
    [{ emails: [`${'x'.repeat(320)}@example.com`] }, 'emails holds an invalid address'],
    [{ annual_revenue: -1 }, 'annual_revenue must be a non-negative number or null'],
    [{ id: 'x', nmae: 'typo' }, 'unknown company field nmae'],
  ])('should refuse a company with a bad field (case %#)', (input, message) => {
    expect(() => parseCompanyFields(input as Record<string, unknown>, undefined)).toThrow(message);
  });

  it('should read deal fields, ignore the server-set columns and take the stage and pipeline for the service', () => {
    expect(parseDealFields({ title: ' Big ', value: '10.50', priority: 'HIGH', currency: 'eur', stage: 'won', pipeline_id: 'p', position: 3 })).toEqual({
      title: 'Big',
      value: 10.5,
      priority: 'high',
      currency: 'EUR',
    });
    expect(() => parseDealFields({ probability: 101 })).toThrow('probability must be a whole number from 0 to 100');
    expect(() => parseDealFields({ expected_close_date: '2026-13-45' })).toThrow('expected_close_date must be a date YYYY-MM-DD or null');
    expect(() => parseDealFields({ stge: 'LEAD' })).toThrow('unknown deal field stge');
  });
});
