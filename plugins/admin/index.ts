/**
 * Account and user administration (DESIGN.md "Endpoints the spec does not show"). ROOT manages
 * accounts; ROOT or the account's own ADMIN manages its users. Keys are returned once, at creation
 * or rotation, and stored hashed.
 */
import { notFound, permissionDenied } from '../../runtime/sdk/index.js';
import type { Identity } from '../../runtime/sdk/index.js';
import { definePlugin } from '../../runtime/sdk/index.js';
import { fieldError, s } from '../../runtime/sdk/index.js';
import { HOST_VERSION } from '../../runtime/sdk/index.js';

const publicUser = (u: { account_id: string; user_id: string; role: string; created_at: string }) => ({
  account_id: u.account_id,
  user_id: u.user_id,
  role: u.role,
  created_at: u.created_at,
});

function requireAccountAdmin(who: Identity, accountId: string): void {
  if (who.role === 'ROOT') return;
  if (who.role === 'ADMIN' && who.accountId === accountId) return;
  throw permissionDenied(
    who.role === 'ADMIN' ? `an ADMIN manages only the users of its own account (${who.accountId})` : 'managing users requires role ADMIN or ROOT',
    { account_id: accountId },
  );
}

export default definePlugin({
  name: 'admin',
  version: HOST_VERSION,
  // Account and user administration; deleting an account drops its whole VFS.
  privileges: ['identity-admin', 'unscoped-vfs'],
  setup(host) {
    const ids = host.identities;
    // Case-insensitive: the reference product and its clients spell roles `user`/`admin` (and its
    // client sends `user` unless told otherwise); the spec spells them USER/ADMIN, which we store.
    const role = s.custom<'ADMIN' | 'USER'>((value, field) => {
      const upper = typeof value === 'string' ? value.toUpperCase() : undefined;
      if (upper === 'ADMIN' || upper === 'USER') return upper;
      throw fieldError(field, `${field} must be user or admin (any case); got ${JSON.stringify(value)}`, { allowed: ['user', 'admin'] });
    });

    host.route({
      method: 'POST',
      path: '/api/v1/admin/accounts',
      roles: ['ROOT'],
      body: s.object({ account_id: s.string({ min: 1 }), admin_user_id: s.string({ min: 1 }) }),
      async handler(ctx) {
        const { account, key } = await ids.createAccount(ctx.body.account_id, ctx.body.admin_user_id);
        ctx.status(201);
        return { account_id: account.account_id, admin_user_id: account.admin_user_id, user_key: key };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/admin/accounts',
      roles: ['ROOT'],
      handler: () => ids.listAccounts(),
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/admin/accounts/{account_id}',
      roles: ['ROOT'],
      async handler(ctx) {
        const accountId = ctx.params.account_id!;
        const deletedUsers = await ids.deleteAccount(accountId);
        const deletedEntries = await host.unscopedVfs.dropAccount(accountId);
        return { account_id: accountId, deleted: true, deleted_users: deletedUsers, deleted_entries: deletedEntries };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/admin/accounts/{account_id}/users',
      roles: ['ROOT', 'ADMIN'],
      body: s.object({ user_id: s.string({ min: 1 }), role: role.default('USER') }),
      async handler(ctx) {
        requireAccountAdmin(ctx.identity, ctx.params.account_id!);
        const { user, key } = await ids.createUser(ctx.params.account_id!, ctx.body.user_id, ctx.body.role);
        ctx.status(201);
        return { account_id: user.account_id, user_id: user.user_id, role: user.role, user_key: key };
      },
    });

    host.route({
      method: 'GET',
      path: '/api/v1/admin/accounts/{account_id}/users',
      roles: ['ROOT', 'ADMIN'],
      async handler(ctx) {
        requireAccountAdmin(ctx.identity, ctx.params.account_id!);
        if (!(await ids.getAccount(ctx.params.account_id!))) throw notFound(`account not found: ${ctx.params.account_id}`, { account_id: ctx.params.account_id });
        return (await ids.listUsers(ctx.params.account_id!)).map(publicUser);
      },
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/admin/accounts/{account_id}/users/{user_id}',
      roles: ['ROOT', 'ADMIN'],
      async handler(ctx) {
        requireAccountAdmin(ctx.identity, ctx.params.account_id!);
        await ids.deleteUser(ctx.params.account_id!, ctx.params.user_id!);
        return { account_id: ctx.params.account_id, user_id: ctx.params.user_id, deleted: true };
      },
    });

    host.route({
      method: 'PUT',
      path: '/api/v1/admin/accounts/{account_id}/users/{user_id}/role',
      roles: ['ROOT', 'ADMIN'],
      body: s.object({ role }),
      async handler(ctx) {
        requireAccountAdmin(ctx.identity, ctx.params.account_id!);
        return publicUser(await ids.setRole(ctx.params.account_id!, ctx.params.user_id!, ctx.body.role));
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/admin/accounts/{account_id}/users/{user_id}/key',
      roles: ['ROOT', 'ADMIN'],
      async handler(ctx) {
        requireAccountAdmin(ctx.identity, ctx.params.account_id!);
        return { account_id: ctx.params.account_id, user_id: ctx.params.user_id, user_key: await ids.rotateKey(ctx.params.account_id!, ctx.params.user_id!) };
      },
    });
  },
});
