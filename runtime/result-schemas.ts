/**
 * Result shapes more than one plugin answers with (spec Part 1 "Task record", "Observer and health
 * shapes"), declared once for the routes' `response` (the OpenAPI document). Open objects: a
 * client must tolerate fields added later, and so does the document.
 */
import { s, type Schema } from './schema.js';
import { TASK_STATUSES } from './tasks/task-manager.js';

/** An object whose listed fields are documented and which may carry more. */
export const resultObject = <S extends Record<string, Schema<unknown>>>(shape: S) => s.object(shape, { unknown: 'allow' });

export const taskRecordSchema = resultObject({
  task_id: s.string(),
  task_type: s.string(),
  status: s.enum(TASK_STATUSES),
  resource_id: s.string().nullable().optional(),
  stage: s.string().nullable(),
  created_at: s.number().describe('epoch seconds'),
  updated_at: s.number().describe('epoch seconds'),
  result: s.record(s.any()).nullable().describe('present when terminal; `execution_events` with include_events=true'),
  error: s.string().nullable(),
});

export const componentStatusSchema = resultObject({
  name: s.string(),
  is_healthy: s.bool(),
  has_errors: s.bool(),
  status: s.string().describe('a text table'),
});

/** `{task_id}` of an operation that continues in the background, sometimes with more. */
export const taskStartedSchema = resultObject({ task_id: s.string() });
