import { Module } from '@nestjs/common';
import { IdentityModule } from '@engage/identity';
import { Database } from '@engage/platform';
import { ContactService } from './application/contact.service';
import { MobileContactsController } from './http/mobile-contacts.controller';

@Module({
  imports: [IdentityModule],
  controllers: [MobileContactsController],
  providers: [{ provide: ContactService, inject: [Database], useFactory: (db: Database) => new ContactService(db) }],
  exports: [ContactService],
})
export class CrmModule {}
