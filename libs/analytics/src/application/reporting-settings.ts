// The organization settings reports follow (set with the admin CLI's set-setting; identity checks
// them when set): `time_zone` (an IANA name, default UTC) and `sla_target_minutes` (default 60).
export interface ReportingSettings {
  timeZone: string;
  targetMinutes: number;
}

export const DEFAULT_REPORTING: ReportingSettings = { timeZone: 'UTC', targetMinutes: 60 };

// A port: the composition reads them through identity's OrganizationSettings.
export type ReadSetting = (organizationId: string, key: string) => Promise<string | null>;

export async function reportingSettings(read: ReadSetting, organizationId: string): Promise<ReportingSettings> {
  const [timeZone, target] = await Promise.all([read(organizationId, 'time_zone'), read(organizationId, 'sla_target_minutes')]);
  const minutes = Number(target);
  return {
    timeZone: timeZone ?? DEFAULT_REPORTING.timeZone,
    targetMinutes: Number.isInteger(minutes) && minutes > 0 ? minutes : DEFAULT_REPORTING.targetMinutes,
  };
}
