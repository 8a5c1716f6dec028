/** The project's tests start hosts with the same harness plugin authors use (ctx-plugin-sdk/testing). */
export { ROOT_KEY, startTestHost as startTestApp, tempDir, type TestHost as TestApp } from '../../runtime/sdk/testing.js';
