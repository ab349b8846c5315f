import { Module } from '@nestjs/common';
import { IdentityModule } from '@engage/identity';
import { Database } from '@engage/platform';
import { ContactService } from './application/contact.service';
import { MobileContactsController } from './http/mobile-contacts.controller';
import { CompanyService } from './application/company.service';
import { CompaniesController } from './http/companies.controller';

@Module({
  imports: [IdentityModule],
  controllers: [MobileContactsController, CompaniesController],
  providers: [
    { provide: ContactService, inject: [Database], useFactory: (db: Database) => new ContactService(db) },
    { provide: CompanyService, inject: [Database], useFactory: (db: Database) => new CompanyService(db) },
  ],
  exports: [ContactService, CompanyService],
})
export class CrmModule {}
