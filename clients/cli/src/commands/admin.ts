/** admin account|user|key. */
import type { Handler } from '../context.js';
import { kv, table, when } from '../output.js';

export const accountLs: Handler = async (cx) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.accounts.list(), (r: Array<{ account_id: string; admin_user_id: string; created_at: string }>) =>
    table(cx.out, ['ACCOUNT', 'ADMIN', 'CREATED'], r.map((a) => [a.account_id, a.admin_user_id, when(a.created_at)])),
  );
};

export const accountCreate: Handler = async (cx, [id], o) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.accounts.create({ account_id: id as string, admin_user_id: o.admin }), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const accountRm: Handler = async (cx, [id]) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.accounts.delete(id as string), () => `deleted account ${id}`);
};

export const userLs: Handler = async (cx, [account]) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.users.list(account as string), (r: Array<{ user_id: string; role: string; created_at: string }>) =>
    table(cx.out, ['USER', 'ROLE', 'CREATED'], r.map((u) => [u.user_id, u.role, when(u.created_at)])),
  );
};

export const userAdd: Handler = async (cx, [account, user], o) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.users.create(account as string, { user_id: user as string, role: o.role }), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const userRm: Handler = async (cx, [account, user]) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.users.delete(account as string, user as string), () => `deleted user ${user} of ${account}`);
};

export const userRole: Handler = async (cx, [account, user, role]) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.users.setRole(account as string, user as string, { role: role as never }), (r: Record<string, unknown>) => kv(cx.out, r));
};

export const keyRotate: Handler = async (cx, [account, user]) => {
  const c = await cx.client();
  cx.out.emit(await c.admin.users.rotateKey(account as string, user as string), (r: Record<string, unknown>) => kv(cx.out, r));
};
