/**
 * Resources (issue 11, items 1–2): `POST /api/v1/resources` imports a temp upload (a file or a
 * zipped tree), an http(s) page or file, a git repository or an operator-allowed host path into a
 * resource root under `ctx://resources` (or a user's resources space), as an `add_resource` task
 * with the stages `queued`, `fetching`, `parsing`, `finalizing`, `processing_queue`. The body is
 * the reference's; the spec does not show it.
 */
import { HOST_VERSION, definePlugin } from 'ctx/plugin';
import { redact } from './watches.js';
import { registerWatchRoutes } from './watch-routes.js';
import { createResourcesState } from './state.js';
import { runWatches } from './watch-runner.js';
import { registerImportTask } from './import-task.js';
import { registerAddRoute } from './add-route.js';
import { registerInfoRoute } from './info-route.js';

export { TASK_TYPE } from './state.js';

export default definePlugin({
  name: 'resources',
  version: HOST_VERSION,
  // temp-files (uploads by temp_file_id).
  dependsOn: ['system'],
  setup(host) {
    const st = createResourcesState(host);
    const { fire } = runWatches(host, st);
    registerImportTask(host, st);
    registerAddRoute(host, st);
    registerWatchRoutes(host, st.watches, (account, id) => {
      void fire(account, id, true).catch((err: unknown) => host.log.warn('watch run failed to start', { watch: id, err: redact(String(err)) }));
    }, (id) => st.currentRun.delete(id));
    registerInfoRoute(host);
  },
});
