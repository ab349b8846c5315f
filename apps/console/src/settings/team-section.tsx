import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { dateTime, fullName } from '../api/rest';
import { ErrorAlert, Loading } from '../ui/page';
import { managesOrganization, useProfile } from './profile.api';
import { changeRole, invite, listInvitations, listMembers, type Member, removeMember, revokeInvitation, roleName, ROLES, TEAM } from './team.api';

// Settings → Team (docs/identity.md): every member sees the team; OWNER and ADMIN change roles,
// remove members, invite by email and revoke invitations, under the API's own rules (who may grant
// what, the last owner), whose refusals are shown as it words them.
export function TeamSection() {
  const queryClient = useQueryClient();
  const profile = useProfile();
  const manager = managesOrganization(profile.data?.role);
  const [removing, setRemoving] = useState<Member | null>(null);
  const [invited, setInvited] = useState<string | null>(null);
  const members = useQuery({ queryKey: [...TEAM, 'members'], queryFn: listMembers });
  const invitations = useQuery({ queryKey: [...TEAM, 'invitations'], queryFn: listInvitations, enabled: manager });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: TEAM });
  const role = useMutation({ mutationFn: (change: { member: Member; role: string }) => changeRole(change.member.id, change.role), onSettled: refresh });
  const remove = useMutation({ mutationFn: (member: Member) => removeMember(member.id), onSuccess: () => setRemoving(null), onSettled: refresh });
  const sendInvitation = useMutation({
    mutationFn: (fields: { email: string; role: string }) => invite(fields.email, fields.role),
    onMutate: () => setInvited(null),
    onSuccess: (invitation) => setInvited(invitation.email),
    onSettled: refresh,
  });
  const revoke = useMutation({ mutationFn: revokeInvitation, onSettled: refresh });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    sendInvitation.mutate({ email: String(form.get('email') ?? ''), role: String(form.get('role') ?? '') });
    event.currentTarget.reset();
  }
  const self = profile.data?.id;
  return (
    <section aria-labelledby="team-heading">
      <h2 id="team-heading">Team</h2>
      {members.isPending ? <Loading what="the team" /> : null}
      <ErrorAlert error={members.error ?? role.error ?? remove.error} />
      {members.data ? (
        <table aria-label="Members">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Online</th>
              {manager ? (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <tr key={member.id}>
                <td dir="auto">{fullName(member)}</td>
                <td dir="auto">{member.email}</td>
                <td>
                  {manager && member.id !== self ? (
                    <select
                      aria-label={`Role of ${member.email}`}
                      value={member.role}
                      disabled={role.isPending}
                      onChange={(event) => role.mutate({ member, role: event.target.value })}
                    >
                      {ROLES.map((name) => (
                        <option key={name} value={name}>
                          {roleName(name)}
                        </option>
                      ))}
                    </select>
                  ) : (
                    roleName(member.role)
                  )}
                </td>
                <td>{member.is_online ? 'Online' : 'Offline'}</td>
                {manager ? (
                  <td>
                    {member.id === self ? null : removing?.id === member.id ? (
                      <span className="actions">
                        <button type="button" className="danger" onClick={() => remove.mutate(member)} disabled={remove.isPending}>
                          Yes, remove
                        </button>
                        <button type="button" onClick={() => setRemoving(null)}>
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button type="button" onClick={() => setRemoving(member)} aria-label={`Remove ${member.email}`}>
                        Remove
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {manager ? (
        <>
          <h3 id="invite-heading">Invite a member</h3>
          <form onSubmit={submit} aria-labelledby="invite-heading" className="filters">
            <div className="field">
              <label htmlFor="invite-email">Email</label>
              <input id="invite-email" name="email" type="email" required maxLength={254} autoComplete="off" />
            </div>
            <div className="field">
              <label htmlFor="invite-role">Role</label>
              <select id="invite-role" name="role" defaultValue="AGENT">
                {ROLES.map((name) => (
                  <option key={name} value={name}>
                    {roleName(name)}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <button type="submit" className="primary" disabled={sendInvitation.isPending}>
                Send invitation
              </button>
            </div>
          </form>
          <ErrorAlert error={sendInvitation.error ?? revoke.error ?? invitations.error} />
          {invited ? (
            <p role="status" dir="auto">
              Invitation sent to {invited}.
            </p>
          ) : null}
          {invitations.data && invitations.data.length > 0 ? (
            <table aria-label="Invitations">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {invitations.data.map((invitation) => (
                  <tr key={invitation.id}>
                    <td dir="auto">{invitation.email}</td>
                    <td>{roleName(invitation.role)}</td>
                    <td>{dateTime(invitation.expires_at)}</td>
                    <td>
                      <button
                        type="button"
                        onClick={() => revoke.mutate(invitation.id)}
                        disabled={revoke.isPending}
                        aria-label={`Revoke the invitation of ${invitation.email}`}
                      >
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
