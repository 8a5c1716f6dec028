/**
 * Account and user administration (DESIGN.md "Endpoints the spec does not show"). ROOT manages
 * accounts; ROOT or the account's own ADMIN manages its users. Keys are returned once, at creation
 * or rotation, and stored hashed.
 */
import { notFound, permissionDenied } from 'ctx/plugin';
import type { Identity } from 'ctx/plugin';
import { definePlugin } from 'ctx/plugin';
import { fieldError, s } from 'ctx/plugin';
import { HOST_VERSION } from 'ctx/plugin';
import { resultObject } from 'ctx/plugin';

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
  privileges: ['identity-admin'],
  privilegeReasons: { 'identity-admin': 'account and user administration; deleting an account drops its whole VFS (host.dropAccountData)' },
  setup(host) {
    const ids = host.identities;
    // Case-insensitive: the reference product and its clients spell roles `user`/`admin` (and its
    // client sends `user` unless told otherwise); the spec spells them USER/ADMIN, which we store.
    const role = s.custom<'ADMIN' | 'USER'>((value, field) => {
      const upper = typeof value === 'string' ? value.toUpperCase() : undefined;
      if (upper === 'ADMIN' || upper === 'USER') return upper;
      throw fieldError(field, `${field} must be user or admin (any case); got ${JSON.stringify(value)}`, { allowed: ['user', 'admin'] });
    }, s.string({ pattern: /^([Uu][Ss][Ee][Rr]|[Aa][Dd][Mm][Ii][Nn])$/ }).describe('user or admin, in any case'));

    host.route({
      method: 'POST',
      path: '/api/v1/admin/accounts',
      summary: 'creates an account and its first ADMIN (ROOT)',
      successStatus: 201,
      response: resultObject({ account_id: s.string(), admin_user_id: s.string(), user_key: s.string() }),
      errors: ['CONFLICT'],
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
      summary: 'every account (ROOT)',
      response: s.array(resultObject({ account_id: s.string(), admin_user_id: s.string().optional(), created_at: s.string().optional() })),
      roles: ['ROOT'],
      handler: () => ids.listAccounts(),
    });

    host.route({
      method: 'DELETE',
      path: '/api/v1/admin/accounts/{account_id}',
      summary: 'deletes an account, its users and all its data (ROOT)',
      response: resultObject({ account_id: s.string(), deleted: s.bool(), deleted_users: s.int(), deleted_entries: s.int() }),
      errors: ['NOT_FOUND'],
      roles: ['ROOT'],
      async handler(ctx) {
        const accountId = ctx.params.account_id!;
        const deletedUsers = await ids.deleteAccount(accountId);
        const deletedEntries = await host.dropAccountData(accountId);
        return { account_id: accountId, deleted: true, deleted_users: deletedUsers, deleted_entries: deletedEntries };
      },
    });

    host.route({
      method: 'POST',
      path: '/api/v1/admin/accounts/{account_id}/users',
      summary: 'adds a user to an account (ROOT or the account\'s ADMIN)',
      successStatus: 201,
      response: resultObject({ account_id: s.string(), user_id: s.string(), role: s.enum(['ADMIN', 'USER']), user_key: s.string() }),
      errors: ['PERMISSION_DENIED', 'NOT_FOUND', 'CONFLICT'],
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
      summary: 'the users of an account (ROOT or its ADMIN)',
      response: s.array(resultObject({ account_id: s.string(), user_id: s.string(), role: s.enum(['ADMIN', 'USER']), created_at: s.string() })),
      errors: ['PERMISSION_DENIED', 'NOT_FOUND'],
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
      summary: 'removes a user (ROOT or the account\'s ADMIN)',
      response: resultObject({ account_id: s.string(), user_id: s.string(), deleted: s.bool() }),
      errors: ['PERMISSION_DENIED', 'NOT_FOUND'],
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
      summary: 'changes a user\'s role (ROOT or the account\'s ADMIN)',
      response: resultObject({ account_id: s.string(), user_id: s.string(), role: s.enum(['ADMIN', 'USER']), created_at: s.string() }),
      errors: ['PERMISSION_DENIED', 'NOT_FOUND'],
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
      summary: 'issues a new key for a user; the old one stops working',
      response: resultObject({ account_id: s.string(), user_id: s.string(), user_key: s.string() }),
      errors: ['PERMISSION_DENIED', 'NOT_FOUND'],
      roles: ['ROOT', 'ADMIN'],
      async handler(ctx) {
        requireAccountAdmin(ctx.identity, ctx.params.account_id!);
        return { account_id: ctx.params.account_id, user_id: ctx.params.user_id, user_key: await ids.rotateKey(ctx.params.account_id!, ctx.params.user_id!) };
      },
    });
  },
});
