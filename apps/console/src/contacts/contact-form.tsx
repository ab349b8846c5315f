import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { messageOf } from '../api/errors';
import { navigate } from '../router';
import { ErrorAlert } from '../ui/page';
import { type Contact, type ContactInput, FieldError, saveContact, useCompanyOptions } from './contacts.api';

const list = (value: FormDataEntryValue | null) =>
  String(value ?? '')
    .split(/[;,\n]/)
    .map((item) => item.trim())
    .filter(Boolean);

// Create or edit a contact. The API validates (phones to E.164, one contact per phone, emails,
// first name required): its message is shown next to the field it names, else above the form.
export function ContactForm({ contact, onDone }: { contact?: Contact; onDone?: () => void }) {
  const queryClient = useQueryClient();
  const companies = useCompanyOptions();
  const [fieldError, setFieldError] = useState<{ field?: string; message: string } | null>(null);
  const save = useMutation({
    mutationFn: (input: ContactInput) => saveContact(input, contact?.id),
    onMutate: () => setFieldError(null),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['contacts'] });
      if (onDone) onDone();
      else navigate(`/contacts?contact=${saved.id}`);
    },
    onError: (error) => setFieldError({ field: error instanceof FieldError ? error.field : undefined, message: messageOf(error) }),
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    save.mutate({
      first_name: String(form.get('first_name') ?? '').trim(),
      last_name: String(form.get('last_name') ?? '').trim() || null,
      phones: list(form.get('phones')),
      emails: list(form.get('emails')),
      tags: list(form.get('tags')),
      company_id: String(form.get('company_id') ?? '') || null,
      description: String(form.get('description') ?? ''),
    });
  };
  const errorFor = (field: string) => (fieldError?.field === field ? fieldError.message : undefined);
  const known = ['first_name', 'last_name', 'phones', 'emails', 'tags', 'company_id', 'description'];
  return (
    <form onSubmit={submit} noValidate className="record-form" aria-label={contact ? 'Edit contact' : 'New contact'}>
      {fieldError && !known.includes(fieldError.field ?? '') ? <ErrorAlert error={new Error(fieldError.message)} /> : null}
      <FormField label="First name" name="first_name" defaultValue={contact?.first_name} error={errorFor('first_name')} hint="Required" />
      <FormField label="Last name" name="last_name" defaultValue={contact?.last_name ?? ''} error={errorFor('last_name')} />
      <FormField
        label="Phones"
        name="phones"
        defaultValue={contact?.phones.join('; ')}
        error={errorFor('phones')}
        hint="Separate several with ; (stored in international form, e.g. +201001234567)"
        dir="ltr"
      />
      <FormField label="Emails" name="emails" defaultValue={contact?.emails.join('; ')} error={errorFor('emails')} hint="Separate several with ;" />
      <FormField label="Tags" name="tags" defaultValue={contact?.tags.join('; ')} error={errorFor('tags')} hint="Separate several with ;" />
      <div className="field">
        <label htmlFor="field-company_id">Company</label>
        <select
          id="field-company_id"
          name="company_id"
          defaultValue={contact?.company_id ?? ''}
          aria-invalid={errorFor('company_id') ? true : undefined}
          aria-describedby={errorFor('company_id') ? 'error-company_id' : undefined}
        >
          <option value="">None</option>
          {companies.data?.map((company) => (
            <option key={company.id} value={company.id}>
              {company.name}
            </option>
          ))}
        </select>
        {errorFor('company_id') ? (
          <p id="error-company_id" className="field-error" role="alert" dir="auto">
            {errorFor('company_id')}
          </p>
        ) : null}
      </div>
      <div className="field">
        <label htmlFor="field-description">Description</label>
        <textarea
          id="field-description"
          name="description"
          rows={3}
          defaultValue={contact?.description}
          dir="auto"
          aria-invalid={errorFor('description') ? true : undefined}
          aria-describedby={errorFor('description') ? 'error-description' : undefined}
        />
        {errorFor('description') ? (
          <p id="error-description" className="field-error" role="alert" dir="auto">
            {errorFor('description')}
          </p>
        ) : null}
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {contact ? 'Save contact' : 'Create contact'}
        </button>
        <button type="button" onClick={() => (onDone ? onDone() : navigate('/contacts'))}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function FormField({
  label,
  name,
  defaultValue,
  error,
  hint,
  dir = 'auto',
}: {
  label: string;
  name: string;
  defaultValue?: string;
  error?: string;
  hint?: string;
  dir?: string;
}) {
  const id = `field-${name}`;
  const describedBy = [hint ? `hint-${name}` : '', error ? `error-${name}` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} defaultValue={defaultValue} dir={dir} aria-invalid={error ? true : undefined} aria-describedby={describedBy} />
      {hint ? (
        <p id={`hint-${name}`} className="small muted field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`error-${name}`} className="field-error" role="alert" dir="auto">
          {error}
        </p>
      ) : null}
    </div>
  );
}
