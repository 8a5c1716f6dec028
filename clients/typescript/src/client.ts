/** `CtxClient`: one method per operation, grouped as the API is. */
import { adminGroup, botGroup, compileGroup, systemGroup } from './groups/ops.js';
import { contentGroup, fsGroup } from './groups/files.js';
import { codeGroup, relationsGroup, searchGroup } from './groups/search.js';
import { packsGroup, privacyGroup, resourcesGroup, sessionsGroup, skillsGroup, snapshotsGroup, watchesGroup } from './groups/store.js';
import { tasksGroup, type TaskRecord, type WaitOptions } from './tasks.js';
import { Transport, type ClientOptions } from './transport.js';
import type { BodyOf, CallOptions, OperationId, ResultOf } from './types.js';

export class CtxClient {
  readonly transport: Transport;
  readonly fs: ReturnType<typeof fsGroup>;
  readonly content: ReturnType<typeof contentGroup>;
  readonly search: ReturnType<typeof searchGroup>;
  readonly code: ReturnType<typeof codeGroup>;
  readonly relations: ReturnType<typeof relationsGroup>;
  readonly resources: ReturnType<typeof resourcesGroup>;
  readonly sessions: ReturnType<typeof sessionsGroup>;
  readonly skills: ReturnType<typeof skillsGroup>;
  readonly packs: ReturnType<typeof packsGroup>;
  readonly snapshots: ReturnType<typeof snapshotsGroup>;
  readonly privacy: ReturnType<typeof privacyGroup>;
  readonly watches: ReturnType<typeof watchesGroup>;
  readonly tasks: ReturnType<typeof tasksGroup>;
  readonly system: ReturnType<typeof systemGroup>;
  readonly admin: ReturnType<typeof adminGroup>;
  readonly compile: ReturnType<typeof compileGroup>;
  readonly bot: ReturnType<typeof botGroup>;

  constructor(opts: ClientOptions = {}) {
    const t = (this.transport = new Transport(opts));
    this.fs = fsGroup(t);
    this.content = contentGroup(t);
    this.search = searchGroup(t);
    this.code = codeGroup(t);
    this.relations = relationsGroup(t);
    this.resources = resourcesGroup(t);
    this.sessions = sessionsGroup(t);
    this.skills = skillsGroup(t);
    this.packs = packsGroup(t, this.resources.tempUpload);
    this.snapshots = snapshotsGroup(t);
    this.privacy = privacyGroup(t);
    this.watches = watchesGroup(t);
    this.tasks = tasksGroup(t);
    this.system = systemGroup(t);
    this.admin = adminGroup(t);
    this.compile = compileGroup(t);
    this.bot = botGroup(t);
  }

  get url(): string {
    return this.transport.url;
  }

  /** This client's writes so far, for another client to read them through any cluster node; see `ClientOptions.readYourWrites`. */
  consistencyToken(): string | undefined {
    return this.transport.consistencyToken();
  }

  /** Any operation by its operationId (for what the groups do not wrap yet). */
  call<O extends OperationId>(op: O, opts?: CallOptions<O>): Promise<ResultOf<O>> {
    return this.transport.call(op, opts);
  }

  /** Polls a background task to its end; see `tasks.wait`. */
  waitForTask(taskId: string, opts?: WaitOptions): Promise<TaskRecord> {
    return this.tasks.wait(taskId, opts);
  }

  /**
   * Uploads a zip (or any single file) and adds it as a resource, then follows the task unless
   * `wait: false`. In Node, `ctx-client/node`'s `addResource` zips a local path first.
   */
  async addResourceFile(
    file: Blob,
    filename: string,
    body: Omit<BodyOf<'postResources'>, 'temp_file_id' | 'path'> = {},
    opts: WaitOptions & { wait?: boolean } = {},
  ): Promise<ResultOf<'postResources'> & { task?: TaskRecord }> {
    const { temp_file_id } = await this.resources.tempUpload(file, filename, undefined, { signal: opts.signal });
    const added = await this.resources.add({ ...body, temp_file_id }, { signal: opts.signal });
    if (opts.wait === false || !added.task_id) return added;
    return { ...added, task: await this.tasks.wait(added.task_id, opts) };
  }
}
