import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { ErrorAlert, Loading } from '../ui/page';
import {
  type BusinessHours,
  DAY_NAMES,
  DEFAULT_OPT_IN_KEYWORDS,
  DEFAULT_OPT_OUT_KEYWORDS,
  getSettings,
  type Interval,
  numberOrNull,
  ORGANIZATION,
  type OrganizationSettings,
  saveSettings,
  textOrNull,
  WEEKDAYS,
} from './organization.api';
import { KeywordList } from './keyword-list';
import { managesOrganization, useProfile } from './profile.api';

const ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

// Settings → Organization: time zone, business hours, SLA target, default country and deal
// inactivity, read by every member and saved by OWNER and ADMIN in one PATCH; the API checks
// every value and its refusal (naming the setting) is shown as it words it.
export function OrganizationSection() {
  const profile = useProfile();
  const settings = useQuery({ queryKey: ORGANIZATION, queryFn: getSettings });
  return (
    <section aria-labelledby="organization-heading">
      <h2 id="organization-heading">Organization</h2>
      {settings.isPending ? <Loading what="the organization's settings" /> : null}
      <ErrorAlert error={settings.error} />
      {settings.data ? <SettingsForm settings={settings.data} editable={managesOrganization(profile.data?.role)} /> : null}
    </section>
  );
}

function SettingsForm({ settings, editable }: { settings: OrganizationSettings; editable: boolean }) {
  const queryClient = useQueryClient();
  const [hours, setHours] = useState<BusinessHours>(settings.business_hours ?? {});
  const [optOut, setOptOut] = useState<string[] | null>(settings.opt_out_keywords);
  const [optIn, setOptIn] = useState<string[] | null>(settings.opt_in_keywords);
  const [saved, setSaved] = useState(false);
  const save = useMutation({
    mutationFn: saveSettings,
    onMutate: () => setSaved(false),
    onSuccess: (answer) => {
      setSaved(true);
      setOptOut(answer.opt_out_keywords);
      setOptIn(answer.opt_in_keywords);
      queryClient.setQueryData(ORGANIZATION, answer);
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const week = Object.fromEntries(WEEKDAYS.filter((day) => (hours[day] ?? []).length > 0).map((day) => [day, hours[day]]));
    save.mutate({
      time_zone: textOrNull(form.get('time_zone')),
      sla_target_minutes: numberOrNull(form.get('sla_target_minutes')),
      default_country: textOrNull(form.get('default_country'))?.toUpperCase() ?? null,
      deal_inactivity_days: numberOrNull(form.get('deal_inactivity_days')),
      business_hours: Object.keys(week).length > 0 ? week : null,
      // An emptied list is unset, so the defaults apply again.
      opt_out_keywords: optOut && optOut.length > 0 ? optOut : null,
      opt_in_keywords: optIn && optIn.length > 0 ? optIn : null,
    });
  }
  // The setting a refusal names: the API's message starts with it ("opt_out_keywords must be ...").
  const refused = /^(opt_out_keywords|opt_in_keywords)\b/.exec(save.error?.message ?? '')?.[1];
  const setDay = (day: keyof BusinessHours, intervals: Interval[]) => setHours({ ...hours, [day]: intervals });
  return (
    <form onSubmit={submit} aria-labelledby="organization-heading">
      <fieldset disabled={!editable} className="plain">
        <div className="filters">
          <div className="field">
            <label htmlFor="org-time-zone">Time zone</label>
            <select id="org-time-zone" name="time_zone" defaultValue={settings.time_zone ?? ''}>
              <option value="">UTC (default)</option>
              {ZONES.map((zone) => (
                <option key={zone} value={zone}>
                  {zone}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="org-sla">SLA target (minutes)</label>
            <input id="org-sla" name="sla_target_minutes" inputMode="numeric" defaultValue={settings.sla_target_minutes ?? ''} placeholder="60" />
          </div>
          <div className="field">
            <label htmlFor="org-country">Default country</label>
            <input id="org-country" name="default_country" maxLength={2} defaultValue={settings.default_country ?? ''} placeholder="EG" />
          </div>
          <div className="field">
            <label htmlFor="org-inactivity">Deal inactivity (days)</label>
            <input id="org-inactivity" name="deal_inactivity_days" inputMode="numeric" defaultValue={settings.deal_inactivity_days ?? ''} placeholder="7" />
          </div>
        </div>
        <fieldset className="business-hours">
          <legend>Business hours</legend>
          {WEEKDAYS.map((day) => {
            const intervals = hours[day] ?? [];
            return (
              <div key={day} className="day" role="group" aria-label={DAY_NAMES[day]}>
                <span className="day-name">{DAY_NAMES[day]}</span>
                {intervals.length === 0 ? <span className="muted">Closed</span> : null}
                {intervals.map(([start, end], index) => (
                  <span key={index} className="interval">
                    <input
                      type="time"
                      aria-label={`${DAY_NAMES[day]} opens`}
                      value={start}
                      onChange={(event) =>
                        setDay(
                          day,
                          intervals.map((interval, at) => (at === index ? [event.target.value, interval[1]] : interval)),
                        )
                      }
                    />
                    to
                    <input
                      type="time"
                      aria-label={`${DAY_NAMES[day]} closes`}
                      value={end}
                      onChange={(event) =>
                        setDay(
                          day,
                          intervals.map((interval, at) => (at === index ? [interval[0], event.target.value] : interval)),
                        )
                      }
                    />
                    {editable ? (
                      <button
                        type="button"
                        onClick={() =>
                          setDay(
                            day,
                            intervals.filter((_, at) => at !== index),
                          )
                        }
                        aria-label={`Remove ${DAY_NAMES[day]} ${start} to ${end}`}
                      >
                        Remove
                      </button>
                    ) : null}
                  </span>
                ))}
                {editable && intervals.length < 4 ? (
                  <button type="button" onClick={() => setDay(day, [...intervals, ['09:00', '17:00']])} aria-label={`Add hours on ${DAY_NAMES[day]}`}>
                    Add hours
                  </button>
                ) : null}
              </div>
            );
          })}
        </fieldset>
        <p className="small muted">
          A customer&apos;s message on SMS or the chat app that is exactly one of these words (ignoring case) opts the contact out of, or back in to, broadcasts
          and sequences.
        </p>
        <div className="keyword-lists">
          <KeywordList
            legend="Opt-out keywords"
            word="opt-out keyword"
            value={optOut}
            defaults={DEFAULT_OPT_OUT_KEYWORDS}
            editable={editable}
            error={refused === 'opt_out_keywords' ? save.error : null}
            onChange={setOptOut}
          />
          <KeywordList
            legend="Opt-in keywords"
            word="opt-in keyword"
            value={optIn}
            defaults={DEFAULT_OPT_IN_KEYWORDS}
            editable={editable}
            error={refused === 'opt_in_keywords' ? save.error : null}
            onChange={setOptIn}
          />
        </div>
      </fieldset>
      {refused === 'opt_out_keywords' || refused === 'opt_in_keywords' ? null : <ErrorAlert error={save.error} />}
      {saved ? <p role="status">Saved.</p> : null}
      {editable ? (
        <button type="submit" className="primary" disabled={save.isPending}>
          Save settings
        </button>
      ) : (
        <p className="muted">Owners and admins change these settings.</p>
      )}
    </form>
  );
}
