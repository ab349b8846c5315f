import { ApiProperty } from '@nestjs/swagger';
import { IsUUID } from 'class-validator';

// POST /functions/v1/automation/rules/<id>/test
export class RuleTestDto {
  @ApiProperty({ format: 'uuid', description: "the message, conversation, contact, deal or call the rule's event is about" })
  @IsUUID()
  subject_id!: string;
}
