import { identityMigrations } from '@engage/identity';
import { startTestRuntime } from '@engage/platform/testing';
import { CompanyService } from '../application/company.service';
import { ContactService } from '../application/contact.service';
import { CsvImportService } from '../application/csv-import.service';
import { crmMigrations } from '../index';

// A database with the CRM's tables and the services the CSV import tests drive directly.
export async function startImportRuntime() {
  const runtime = await startTestRuntime({ role: 'api', migrations: [...identityMigrations, ...crmMigrations] });
  const contacts = new ContactService(runtime.db);
  const companies = new CompanyService(runtime.db);
  return { runtime, contacts, companies, imports: new CsvImportService(runtime.db, contacts, companies) };
}
